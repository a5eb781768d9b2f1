#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| delegateos_reference::fuzzing::fuzz_token_decode(data));
