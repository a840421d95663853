/* Input loading for the readers: a regular file is mapped, anything else
 * (standard input, pipes) is read into one buffer through the caller's
 * allocator, whole or, for the readers that take a text piece by piece, its
 * first part only, the rest read as they go. Both readers' entry points
 * (lib/io/read.c, lib/io/events.c) load through here. */
#ifndef CGPROP_UTIL_FILE_H
#define CGPROP_UTIL_FILE_H

#include "cgprop.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct cgprop__file {
    const char *data; /* the bytes (not NUL-terminated), valid until cgprop__file_close */
    size_t len;
    const char *name; /* "<stdin>" or the path, NUL-terminated */
    /* What went wrong when opening fails: what was tried and the errno. */
    const char *why;
    int errnum;
    /* Private. */
    char path[4096];
    void *map;
    size_t map_len;
    char *buf;
    size_t cap;
    const cgprop_allocator *alloc;
    /* A stream read only in part: the rest is still to come from in. */
    void *in;
    bool more;
} cgprop__file;

/* The path "-" is standard input. Returns CGPROP_OK, CGPROP_EINVAL (a path
 * that is empty, too long or holds a NUL), CGPROP_ENOTFOUND (cannot open or
 * read: why and errnum say what and why) or CGPROP_ENOMEM. */
int cgprop__file_open(cgprop__file *f, const char *path, size_t path_len, const cgprop_allocator *alloc);
/* The same, but a stream that cannot be mapped is read only up to head bytes
 * (data, len); more is then true when bytes remain, which
 * cgprop__file_rest() appends to data or cgprop__file_more() hands out. */
int cgprop__file_open_head(cgprop__file *f, const char *path, size_t path_len, const cgprop_allocator *alloc,
                           size_t head);
/* Reads the rest of the stream into data (CGPROP_ENOMEM or, on a read
 * error, CGPROP_ENOTFOUND with why and errnum). */
int cgprop__file_rest(cgprop__file *f);
/* Frees the bytes read so far of a stream with more to come (data and len
 * become empty), once the caller has them elsewhere. */
void cgprop__file_drop(cgprop__file *f);
/* Up to cap of the bytes after data, into dst; *got is 0 at the end. */
int cgprop__file_more(cgprop__file *f, char *dst, size_t cap, size_t *got);
void cgprop__file_close(cgprop__file *f);

/* Text for an errno value, without strerror()'s shared buffer: graphs on
 * distinct threads must not interfere. */
const char *cgprop__errno_text(int e);

#endif
