/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h: the live fuzzer's mutation engine, shared by every peer that
 * sends mutated RPC-over-RDMA messages at a running module.
 */
#ifndef NFSRDMA_TESTING_FUZZ_H
#define NFSRDMA_TESTING_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* A seeded generator: a run is replayed exactly from its seed. */
struct fuzz_rng {
	uint64_t state;
};

uint64_t fuzz_rand(struct fuzz_rng *r);

/* A value in [0, n); 0 when n is 0. */
static inline uint32_t fuzz_below(struct fuzz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fuzz_rand(r) % n) : 0;
}

/*
 * Mutate the @len-byte message in @buf (room for @cap) in place with one
 * to three mutations, most of them within its first @focus bytes (the
 * transport header and the start of the RPC message), and return its new
 * length.  @what gets a short description of what was done, for replay
 * logs.
 */
size_t fuzz_mutate(struct fuzz_rng *r, uint8_t *buf, size_t len, size_t cap,
		   size_t focus, char *what, size_t what_size);

#endif
