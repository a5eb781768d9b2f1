/*!
The `delegateos-conform` binary: parses arguments, calls the library, exits with the
documented code (see `delegateos_conform::cli::ConformExitCode` and `--help`).
*/

fn main() {
    std::process::exit(delegateos_conform::cli::main(std::env::args_os()));
}
