//! Links libcgprop. CGPROP_LIB_DIR names the folder holding libcgprop.so (or
//! libcgprop.a); without it the system linker's default paths are searched.
use std::env;

fn main() {
    println!("cargo:rerun-if-env-changed=CGPROP_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CGPROP_STATIC");
    if let Ok(dir) = env::var("CGPROP_LIB_DIR") {
        if !dir.is_empty() {
            println!("cargo:rustc-link-search=native={}", dir);
        }
    }
    if env::var("CGPROP_STATIC").map(|v| v == "1").unwrap_or(false) {
        // A static archive needs libm from whoever links it (cgprop.pc's Libs.private).
        println!("cargo:rustc-link-lib=static=cgprop");
        println!("cargo:rustc-link-lib=m");
    } else {
        println!("cargo:rustc-link-lib=cgprop");
    }
}
