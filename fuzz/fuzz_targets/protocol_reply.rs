#![no_main]
libfuzzer_sys::fuzz_target!(
    |data: &[u8]| delegateos_conform::fuzz::targets::fuzz_protocol_reply(data)
);
