/* Runs a fuzz target over files given on the command line, so the corpus and
 * every crash found become ordinary regression tests without libFuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        if (!fp) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
            if (len == cap) {
                cap = cap ? cap * 2 : 65536;
                uint8_t *p = realloc(buf, cap);
                if (!p) return 1;
                buf = p;
            }
            size_t r = fread(buf + len, 1, cap - len, fp);
            if (!r) break;
            len += r;
        }
        fclose(fp);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    printf("%d inputs ran without a crash\n", n);
    return 0;
}
