//! The text of an input file: its pages mapped into memory when the file is large, its bytes
//! read into a string otherwise.
//!
//! Reading copies the file into fresh memory, whose every page the system must fault in and
//! zero first: for a 6 MB source about 3 ms, a fifth of what parsing it takes. A mapping hands
//! over the pages the system already holds for the file. It assumes, as tools that map their
//! input do, that no other process truncates or rewrites the file while atomir reads it.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;

/// An input file's text.
pub(crate) enum Source {
    Read(String),
    #[cfg(unix)]
    Mapped(map::MappedText),
}

impl Deref for Source {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Source::Read(text) => text,
            #[cfg(unix)]
            Source::Mapped(text) => text.as_str(),
        }
    }
}

/// Files smaller than this are read: mapping costs system calls and page-table work that pay
/// off only against copying a large file.
#[cfg(unix)]
const MAP_FROM: u64 = 1 << 20;

/// The text of the file at `path`, with the errors `std::fs::read_to_string` gives.
pub(crate) fn read_file(path: &str) -> io::Result<Source> {
    let mut file = File::open(path)?;
    #[cfg(unix)]
    if let Some(text) = map_text(&file) {
        return Ok(Source::Mapped(text));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(Source::Read(text))
}

/// The file mapped as text, when it is a large regular file of UTF-8; `None` where it is not,
/// or cannot be mapped, for the caller to read it and report what reading finds.
#[cfg(unix)]
fn map_text(file: &File) -> Option<map::MappedText> {
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() < MAP_FROM {
        return None;
    }
    map::MappedText::new(file, usize::try_from(metadata.len()).ok()?)
}

#[cfg(unix)]
mod map {
    use std::fs::File;
    use std::os::fd::AsRawFd;

    /// A read-only private mapping of a whole file whose bytes were found to be UTF-8.
    pub(crate) struct MappedText {
        ptr: *mut libc::c_void,
        len: usize,
    }

    // The flags of the mapping: read ahead of the parser, which walks the text from start to
    // end, as one call rather than a page fault per few pages.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const FLAGS: libc::c_int = libc::MAP_PRIVATE | libc::MAP_POPULATE;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const FLAGS: libc::c_int = libc::MAP_PRIVATE;

    impl MappedText {
        /// Maps the `len` bytes (more than zero) of `file`; `None` if that fails or they are
        /// not UTF-8.
        pub(crate) fn new(file: &File, len: usize) -> Option<Self> {
            // SAFETY: a fresh mapping chosen by the system, of a descriptor open for reading,
            // read-only; nothing else refers to it.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ,
                    FLAGS,
                    file.as_raw_fd(),
                    0,
                )
            };
            if ptr == libc::MAP_FAILED {
                return None;
            }
            let mapped = MappedText { ptr, len };
            std::str::from_utf8(mapped.bytes()).ok()?;
            Some(mapped)
        }

        fn bytes(&self) -> &[u8] {
            // SAFETY: `ptr` is the start of a live mapping of `len` readable bytes, unmapped
            // only by `drop`; the file is not changed while it is read (see the module docs).
            unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
        }

        pub(crate) fn as_str(&self) -> &str {
            // SAFETY: `new` found these bytes to be UTF-8.
            unsafe { std::str::from_utf8_unchecked(self.bytes()) }
        }
    }

    impl Drop for MappedText {
        fn drop(&mut self) {
            // SAFETY: the mapping `new` made, unmapped once; no borrow of it outlives `self`.
            unsafe {
                libc::munmap(self.ptr, self.len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file is mapped and a small one read, both to the same text; a large file that
    /// is not UTF-8 is refused as reading refuses it.
    #[test]
    fn large_files_are_mapped_small_ones_read_to_the_same_text() {
        let dir = std::env::temp_dir().join(format!("atomir-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let line = "  %r = atomic.add.u32 [%g], %x # é\n";
        let large = line.repeat((MAP_FROM as usize) / line.len() + 1);
        for (text, mapped) in [(line.to_string(), false), (large, true)] {
            let path = dir.join("k.atom");
            std::fs::write(&path, &text).unwrap();
            let source = read_file(path.to_str().unwrap()).unwrap();
            assert_eq!(matches!(source, Source::Mapped(_)), mapped);
            assert_eq!(&*source, text);
        }
        let path = dir.join("bad.atom");
        let mut bad = vec![b'x'; MAP_FROM as usize];
        bad.push(0xff);
        std::fs::write(&path, &bad).unwrap();
        let error = read_file(path.to_str().unwrap()).err().unwrap();
        let expected = std::fs::read_to_string(&path).err().unwrap();
        assert_eq!(error.to_string(), expected.to_string());
        assert_eq!(error.kind(), expected.kind());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
