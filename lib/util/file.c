/* Whole-input loading (util/file.h). */
/* open, fstat, mmap under -std=c11. */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#include "file.h"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#if defined(_POSIX_MAPPED_FILES) && _POSIX_MAPPED_FILES > 0
#define CGPROP_HAVE_MMAP 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#endif
#endif
#ifndef CGPROP_HAVE_MMAP
#define CGPROP_HAVE_MMAP 0
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* strerror() may share one static buffer between threads, and graphs on
 * distinct threads must not interfere: the library names the errors that
 * opening, reading or writing a file can give itself. */
const char *cgprop__errno_text(int e)
{
    switch (e) {
    case 0: return "unknown error";
    case ENOENT: return "no such file or directory";
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case EISDIR: return "is a directory";
    case ENOTDIR: return "a part of the path is not a directory";
    case ENAMETOOLONG: return "file name too long";
    case ELOOP: return "too many levels of symbolic links";
    case EMFILE: return "too many open files in this process";
    case ENFILE: return "too many open files in the system";
    case ENOSPC: return "no space left on device";
    case EROFS: return "read-only file system";
    case EIO: return "input/output error";
    case EFBIG: return "file too large";
    case ENOMEM: return "out of memory";
    case EINVAL: return "invalid argument";
    case EBADF: return "bad file descriptor";
    case EPIPE: return "broken pipe";
    case EEXIST: return "file exists";
    case EINTR: return "interrupted";
#ifdef EDQUOT
    case EDQUOT: return "disk quota exceeded";
#endif
#ifdef ETXTBSY
    case ETXTBSY: return "text file busy";
#endif
    default: return "system error";
    }
}

static void *f_realloc(const cgprop_allocator *a, void *p, size_t n)
{
    if (!a) return realloc(p, n);
    return p ? a->realloc_fn(a->user, p, n) : a->malloc_fn(a->user, n);
}

static void f_free(const cgprop_allocator *a, void *p)
{
    if (!p) return;
    if (a) a->free_fn(a->user, p);
    else free(p);
}

static bool grow(cgprop__file *f, size_t *cap, size_t need)
{
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 65536;
    while (c < need) {
        if (c > SIZE_MAX / 2) return false;
        c *= 2;
    }
    char *p = f_realloc(f->alloc, f->buf, c);
    if (!p) return false;
    f->buf = p;
    *cap = c;
    return true;
}

static int fail(cgprop__file *f, int rc, const char *why, int errnum)
{
    f->why = why;
    f->errnum = errnum;
    return rc;
}

#if CGPROP_HAVE_MMAP
/* Maps the regular file open on fd from byte off to its end. False (nothing
 * changed) when fd is not a regular file, holds nothing past off, or cannot
 * be mapped: the caller then reads it through stdio. */
static bool map_regular(cgprop__file *f, int fd, uint64_t off)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return false;
    uint64_t size = (uint64_t)st.st_size;
    if (size >= (uint64_t)SIZE_MAX || off >= size) return false;
    /* Mapped from 0 (the offset of a mapping must be page-aligned); the
     * bytes before off are skipped. */
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return false;
#ifdef MADV_SEQUENTIAL
    (void)madvise(m, (size_t)size, MADV_SEQUENTIAL);
#endif
    f->map = m;
    f->map_len = (size_t)size;
    f->data = (const char *)m + off;
    f->len = (size_t)(size - off);
    return true;
}
#endif

/* Reads from f->in until f->len reaches want or the stream ends. */
static int read_until(cgprop__file *f, size_t want)
{
    while (f->len < want) {
        if (f->len == f->cap && !grow(f, &f->cap, f->len + 65536)) return CGPROP_ENOMEM;
        size_t room = f->cap - f->len;
        if (room > want - f->len) room = want - f->len;
        size_t got = fread(f->buf + f->len, 1, room, (FILE *)f->in);
        f->len += got;
        if (got == 0) {
            if (ferror((FILE *)f->in)) return fail(f, CGPROP_ENOTFOUND, "read error", errno);
            f->more = false;
            break;
        }
    }
    return CGPROP_OK;
}

static void end_stream(cgprop__file *f)
{
    if (f->in && f->in != (void *)stdin) fclose((FILE *)f->in);
    f->in = NULL;
    f->more = false;
}

int cgprop__file_open_head(cgprop__file *f, const char *path, size_t path_len, const cgprop_allocator *alloc,
                           size_t head)
{
    memset(f, 0, sizeof *f);
    f->alloc = alloc;
    f->name = "";
    f->data = "";
    if (!path || path_len == 0 || path_len >= sizeof f->path || memchr(path, '\0', path_len))
        return fail(f, CGPROP_EINVAL, "bad path", 0);
    memcpy(f->path, path, path_len);
    f->path[path_len] = '\0';
    bool is_stdin = path_len == 1 && path[0] == '-';
    f->name = is_stdin ? "<stdin>" : f->path;

    FILE *in = NULL;
#if CGPROP_HAVE_MMAP
    /* A regular file is mapped, not copied: no buffer to zero and fill, and
     * its pages are the page cache's, not the reader's memory. */
    if (!is_stdin) {
        int fd = open(f->path, O_RDONLY);
        if (fd < 0) return fail(f, CGPROP_ENOTFOUND, "cannot open", errno);
        struct stat st;
        /* A directory opens and seeks to a meaningless size; refuse it here
         * rather than try to allocate that size. */
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            close(fd);
            return fail(f, CGPROP_ENOTFOUND, "cannot read", EISDIR);
        }
        if (map_regular(f, fd, 0)) {
            close(fd);
            return CGPROP_OK;
        }
        /* Read through this descriptor: a named pipe opened a second time
         * would be a second reader, and its writer, whose only reader this
         * one was, would have been told the pipe broke. */
        if (!(in = fdopen(fd, "rb"))) {
            int e = errno;
            close(fd);
            return fail(f, CGPROP_ENOTFOUND, "cannot open", e);
        }
    } else {
        /* `cgprop report - < big.perf` is a regular file behind standard
         * input: mapped like a named file, from where the stream stands (the
         * caller may have read some of it), so a large recording given this
         * way reads in the graph's memory too. The stream is then left at its
         * end, as reading it whole would leave it. */
        long off = ftell(stdin);
        if (off >= 0 && map_regular(f, fileno(stdin), (uint64_t)off)) {
            (void)fseek(stdin, 0, SEEK_END);
            return CGPROP_OK;
        }
    }
#endif
    if (!in) in = is_stdin ? stdin : fopen(f->path, "rb");
    if (!in) return fail(f, CGPROP_ENOTFOUND, "cannot open", errno);
    f->in = in;
    f->more = true;
    int rc = CGPROP_OK;
    /* One allocation of the right size for regular files (+1 to see EOF). */
    if (!is_stdin && fseek(in, 0, SEEK_END) == 0) {
        long sz = ftell(in);
        size_t want = sz > 0 && (unsigned long)sz < SIZE_MAX - 1 ? (size_t)sz + 1 : 0;
        if (want > head) want = head;
        if (want && !grow(f, &f->cap, want)) rc = CGPROP_ENOMEM;
        if (fseek(in, 0, SEEK_SET) != 0 && !rc) rc = fail(f, CGPROP_ENOTFOUND, "cannot seek", errno);
    }
    if (!rc) rc = read_until(f, head);
    if (!f->more) end_stream(f);
    if (rc) {
        cgprop__file_close(f);
        f->name = is_stdin ? "<stdin>" : f->path;
        return rc;
    }
    f->data = f->buf ? f->buf : "";
    return CGPROP_OK;
}

int cgprop__file_open(cgprop__file *f, const char *path, size_t path_len, const cgprop_allocator *alloc)
{
    return cgprop__file_open_head(f, path, path_len, alloc, SIZE_MAX);
}

int cgprop__file_rest(cgprop__file *f)
{
    if (!f->more) return CGPROP_OK;
    int rc = read_until(f, SIZE_MAX);
    f->data = f->buf ? f->buf : "";
    if (!f->more) end_stream(f);
    return rc;
}

void cgprop__file_drop(cgprop__file *f)
{
    if (!f->more || f->map) return;
    f_free(f->alloc, f->buf);
    f->buf = NULL;
    f->cap = 0;
    f->data = "";
    f->len = 0;
}

int cgprop__file_more(cgprop__file *f, char *dst, size_t cap, size_t *got)
{
    *got = 0;
    if (!f->more || cap == 0) return CGPROP_OK;
    size_t n = fread(dst, 1, cap, (FILE *)f->in);
    *got = n;
    if (n == 0) {
        if (ferror((FILE *)f->in)) return fail(f, CGPROP_ENOTFOUND, "read error", errno);
        end_stream(f);
    }
    return CGPROP_OK;
}

void cgprop__file_close(cgprop__file *f)
{
    end_stream(f);
#if CGPROP_HAVE_MMAP
    if (f->map) munmap(f->map, f->map_len);
#endif
    f_free(f->alloc, f->buf);
    f->map = NULL;
    f->buf = NULL;
    f->data = "";
    f->len = 0;
}
