//! Finds libcgprop the way -sys crates do, in this order:
//!
//! 1. `CGPROP_LIB_DIR`: the folder holding libcgprop.so (or libcgprop.a with
//!    `CGPROP_STATIC=1`). Nothing else is asked.
//! 2. `pkg-config --libs --cflags cgprop` (`--static` too with
//!    `CGPROP_STATIC=1`), run as a program so the crate needs no registry
//!    crate; it honours `PKG_CONFIG_PATH` and the rest of pkg-config's own
//!    environment, and `PKG_CONFIG` names another program.
//! 3. Neither: `-lcgprop` alone, left to the linker's default paths (an
//!    installed /usr/lib), with a cargo warning saying so.
//!
//! A shared library found in a folder the loader does not search by itself
//! gets an rpath on this crate's own tests and examples, so `cargo test` runs
//! without `LD_LIBRARY_PATH`; `CGPROP_NO_RPATH=1` turns that off. Cargo does
//! not pass link arguments on to crates that depend on this one: they get
//! the folder as `DEP_CGPROP_LIB_DIR` for their own build script.
use std::env;
use std::path::Path;
use std::process::Command;

/// The library version these declarations are written for: before 1.0 each
/// minor version may change the ABI, so another one must not be linked.
const WANT_MAJOR_MINOR: &str = "0.3";

fn main() {
    for v in ["CGPROP_LIB_DIR", "CGPROP_STATIC", "CGPROP_STATIC_LIBS", "CGPROP_NO_RPATH", "PKG_CONFIG", "PKG_CONFIG_PATH",
              "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    println!("cargo:rerun-if-changed=build.rs");
    let statik = env::var("CGPROP_STATIC").map(|v| v == "1").unwrap_or(false);

    let mut dirs: Vec<String> = Vec::new();
    let mut extra_libs: Vec<String> = Vec::new();
    let mut include: Option<String> = None;

    if let Some(dir) = env::var("CGPROP_LIB_DIR").ok().filter(|d| !d.is_empty()) {
        if statik {
            // The archive is copied into this crate's rlib: a rebuilt one
            // must rebuild the crate, or its tests link the old code.
            println!("cargo:rerun-if-changed={}", Path::new(&dir).join("libcgprop.a").display());
        }
        dirs.push(dir);
        if statik {
            // A static archive needs what cgprop.pc's Libs.private names from
            // whoever links it: libm, and zlib when the library reads gzip.
            // CGPROP_STATIC_LIBS lists them when pkg-config is not asked.
            let libs = env::var("CGPROP_STATIC_LIBS").unwrap_or_else(|_| "m".into());
            extra_libs.extend(libs.split_whitespace().map(String::from));
        }
    } else if let Some(pc) = pkg_config(statik) {
        dirs = pc.dirs;
        extra_libs = pc.libs.into_iter().filter(|l| l != "cgprop").collect();
        include = pc.include;
    } else {
        println!("cargo:warning=cgprop: neither CGPROP_LIB_DIR is set nor does `pkg-config cgprop` find the \
                  library; linking -lcgprop from the linker's default paths (set PKG_CONFIG_PATH to \
                  <prefix>/lib/pkgconfig of an installed cgprop, or CGPROP_LIB_DIR to its library folder)");
    }

    for d in &dirs {
        println!("cargo:rustc-link-search=native={}", d);
    }
    println!("cargo:rustc-link-lib={}=cgprop", if statik { "static" } else { "dylib" });
    for l in &extra_libs {
        println!("cargo:rustc-link-lib={}", l);
    }
    let no_rpath = env::var("CGPROP_NO_RPATH").map(|v| v == "1").unwrap_or(false);
    if !statik && !no_rpath && target_uses_rpath() {
        for d in dirs.iter().filter(|d| !system_dir(d)) {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", d);
        }
    }
    // For the build scripts of crates that depend on this one (links = "cgprop").
    if let Some(d) = dirs.first() {
        println!("cargo:lib_dir={}", d);
    }
    if let Some(i) = include {
        println!("cargo:include={}", i);
    }
}

struct PkgConfig {
    dirs: Vec<String>,
    libs: Vec<String>,
    include: Option<String>,
}

/// Runs pkg-config; None when the program or the package is missing (the
/// caller then falls back to the linker's paths). A package of another
/// minor version stops the build: its structs and rows may differ.
fn pkg_config(statik: bool) -> Option<PkgConfig> {
    let prog = env::var("PKG_CONFIG").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| "pkg-config".into());
    let version = match Command::new(&prog).args(["--modversion", "cgprop"]).output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Ok(o) => {
            println!("cargo:warning=cgprop: `{} --modversion cgprop` failed: {}", prog,
                     String::from_utf8_lossy(&o.stderr).trim());
            return None;
        }
        Err(e) => {
            println!("cargo:warning=cgprop: cannot run {}: {}", prog, e);
            return None;
        }
    };
    let major_minor: Vec<&str> = version.split('.').take(2).collect();
    if major_minor.join(".") != WANT_MAJOR_MINOR {
        panic!("cgprop: pkg-config finds cgprop {}, but this crate is written for the {}.x ABI",
               version, WANT_MAJOR_MINOR);
    }
    let mut args = vec!["--libs", "--cflags"];
    if statik {
        args.push("--static");
    }
    args.push("cgprop");
    let out = Command::new(&prog).args(&args).output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut pc = PkgConfig { dirs: Vec::new(), libs: Vec::new(), include: None };
    for word in text.split_whitespace() {
        if let Some(d) = word.strip_prefix("-L") {
            pc.dirs.push(d.to_string());
        } else if let Some(l) = word.strip_prefix("-l") {
            pc.libs.push(l.to_string());
        } else if let Some(i) = word.strip_prefix("-I") {
            pc.include.get_or_insert_with(|| i.to_string());
        }
    }
    // pkg-config leaves out -L of the system's own folders; the library is
    // then found there by the linker and the loader alike.
    Some(pc)
}

fn target_uses_rpath() -> bool {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    !matches!(os.as_str(), "windows" | "macos" | "ios")
}

/// Folders the dynamic loader searches without being told: no rpath for those.
fn system_dir(d: &str) -> bool {
    let p = Path::new(d);
    ["/lib", "/usr/lib", "/lib64", "/usr/lib64"].iter().any(|s| p == Path::new(s))
        || (p.parent().map_or(false, |q| q == Path::new("/usr/lib") || q == Path::new("/lib"))
            && p.file_name().map_or(false, |n| n.to_string_lossy().ends_with("-linux-gnu")))
}
