/* Whole-input loading for the readers: a regular file is mapped, anything
 * else (standard input, pipes) is read into one buffer through the caller's
 * allocator. Both readers' entry points (lib/io/read.c, lib/io/events.c)
 * load through here. */
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
    const cgprop_allocator *alloc;
} cgprop__file;

/* The path "-" is standard input. Returns CGPROP_OK, CGPROP_EINVAL (a path
 * that is empty, too long or holds a NUL), CGPROP_ENOTFOUND (cannot open or
 * read: why and errnum say what and why) or CGPROP_ENOMEM. */
int cgprop__file_open(cgprop__file *f, const char *path, size_t path_len, const cgprop_allocator *alloc);
void cgprop__file_close(cgprop__file *f);

/* Text for an errno value, without strerror()'s shared buffer: graphs on
 * distinct threads must not interfere. */
const char *cgprop__errno_text(int e);

#endif
