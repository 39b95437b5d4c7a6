//! `cargo xtask gen [--check]` (the alias is in `.cargo/config.toml`).

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask gen [--check]
  gen          write every generated file that differs from what the model renders
  gen --check  write nothing; exit 1 naming each stale file";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = xtask::repo_root();
    match args[..] {
        ["gen"] => match xtask::write(&root) {
            Ok(written) => {
                for o in &written {
                    println!("wrote {}", o.path);
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("xtask gen: {e}");
                ExitCode::FAILURE
            }
        },
        ["gen", "--check"] => {
            let stale = xtask::stale(&root);
            for o in &stale {
                eprintln!("{} is stale: run `cargo xtask gen`", o.path);
            }
            if stale.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
