package analyzer

/*
#include <malloc.h>
*/
import "C"

// mmapThreshold is the size (bytes) from which the C allocator serves an
// allocation with its own mapping, handed back to the system when freed.
// libpg_query copies a large text several times in C memory (the input, the
// parse tree, the protobuf output); glibc's default threshold rises after
// such a block is freed, so later large blocks came from heaps it keeps,
// and the Sidecar's resident memory stayed high after a burst of large
// statements. A fixed threshold keeps it from rising.
const mmapThreshold = 256 << 10

func init() { C.mallopt(C.M_MMAP_THRESHOLD, mmapThreshold) }
