/* libFuzzer target: the folded-stack reader on arbitrary bytes, with allocation
 * failures, then every analysis, every writer and a read-back of the
 * callgrind writer's output (fuzz_stacks.h). */
#include "fuzz_stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fz_stack_target(data, size, CGPROP_INPUT_FOLDED, "fuzz.folded");
}
