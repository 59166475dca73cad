// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.c: the live fuzzer's mutations.
 *
 * Design.  An RPC-over-RDMA message is a run of XDR words, and every field
 * a peer can lie with (XID, version, credits, procedure, list
 * discriminators, segment counts, handles, lengths, offsets, positions)
 * is a word, so most mutations work on aligned words: one replaced by a
 * value at or beyond some limit (0, 1, powers of two and their
 * neighbours, all-ones, the message's own length), nudged by a small
 * delta, swapped with or copied from another.  The rest work on bytes
 * and shape: a bit flipped, the message cut short or grown by random
 * bytes, a run of words repeated or removed.  Three mutations in four
 * land in the first @focus bytes, where the header is.
 *
 * The generator is splitmix64: small, and the same on every host, so a
 * seed and a message index replay a failure exactly.
 */

#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include "fuzz.h"

uint64_t fuzz_rand(struct fuzz_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static const uint32_t fuzz_limits[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 127, 128, 255, 256,
	1023, 1024, 1025, 4092, 4095, 4096, 4097, 8192, 65535, 65536,
	1048576, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001,
	0xfffffffc, 0xfffffffe, 0xffffffff,
};

#define NR_LIMITS (sizeof(fuzz_limits) / sizeof(fuzz_limits[0]))

static uint32_t get_word(const uint8_t *buf, size_t i)
{
	uint32_t v;

	memcpy(&v, buf + 4 * i, 4);
	return ntohl(v);
}

static void set_word(uint8_t *buf, size_t i, uint32_t v)
{
	v = htonl(v);
	memcpy(buf + 4 * i, &v, 4);
}

/* A byte offset below @len, usually below @focus. */
static size_t pick_byte(struct fuzz_rng *r, size_t len, size_t focus)
{
	if (focus > len)
		focus = len;
	if (focus && fuzz_below(r, 4))
		return fuzz_below(r, focus);
	return fuzz_below(r, len);
}

/* A whole word's index, usually within @focus. */
static size_t pick_word(struct fuzz_rng *r, size_t len, size_t focus)
{
	return pick_byte(r, len & ~(size_t)3, focus) / 4;
}

/* One mutation; returns the new length and appends to @what. */
static size_t mutate_once(struct fuzz_rng *r, uint8_t *buf, size_t len,
			  size_t cap, size_t focus, char *what, size_t wsz)
{
	size_t words = len / 4, used = strlen(what), i, j, n;
	uint32_t v;

	/* Word mutations need a word; an empty message can only grow. */
	switch (words ? fuzz_below(r, 9) : 5) {
	case 0:
		i = pick_byte(r, len, focus);
		j = fuzz_below(r, 8);
		buf[i] ^= 1u << j;
		snprintf(what + used, wsz - used, " flip@%zu.%zu", i, j);
		return len;
	case 1:
		i = pick_word(r, len, focus);
		v = fuzz_below(r, 4) ? fuzz_limits[fuzz_below(r, NR_LIMITS)] :
		    (uint32_t)len + 4 * fuzz_below(r, 3) - 4;
		set_word(buf, i, v);
		snprintf(what + used, wsz - used, " w%zu=%#x", i, v);
		return len;
	case 2:
		i = pick_word(r, len, focus);
		v = get_word(buf, i) + fuzz_below(r, 9) - 4;
		set_word(buf, i, v);
		snprintf(what + used, wsz - used, " w%zu~%#x", i, v);
		return len;
	case 3:
		i = pick_word(r, len, focus);
		j = pick_word(r, len, focus);
		v = get_word(buf, i);
		set_word(buf, i, get_word(buf, j));
		set_word(buf, j, v);
		snprintf(what + used, wsz - used, " swap%zu,%zu", i, j);
		return len;
	case 4:
		i = pick_word(r, len, focus);
		j = pick_word(r, len, focus);
		set_word(buf, i, get_word(buf, j));
		snprintf(what + used, wsz - used, " w%zu=w%zu", i, j);
		return len;
	case 5:
		n = 1 + fuzz_below(r, 64);
		if (n > cap - len)
			n = cap - len;
		for (i = 0; i < n; i++)
			buf[len + i] = (uint8_t)fuzz_rand(r);
		snprintf(what + used, wsz - used, " grow+%zu", n);
		return len + n;
	case 6:
		n = pick_byte(r, len, focus);
		snprintf(what + used, wsz - used, " cut%zu", n);
		return n;
	case 7:
		/* Repeat a run of words in place: lists that say more. */
		i = pick_word(r, len, focus);
		n = 4 * (1 + fuzz_below(r, 8));
		if (n > len - 4 * i)
			n = len - 4 * i;
		if (n > cap - len)
			n = cap - len;
		memmove(buf + 4 * i + n, buf + 4 * i, len - 4 * i);
		snprintf(what + used, wsz - used, " dup%zu+%zu", i, n);
		return len + n;
	default:
		/* Remove a run of words: lists that say less. */
		i = pick_word(r, len, focus);
		n = 4 * (1 + fuzz_below(r, 8));
		if (n > len - 4 * i)
			n = len - 4 * i;
		memmove(buf + 4 * i, buf + 4 * i + n, len - 4 * i - n);
		snprintf(what + used, wsz - used, " del%zu-%zu", i, n);
		return len - n;
	}
}

size_t fuzz_mutate(struct fuzz_rng *r, uint8_t *buf, size_t len, size_t cap,
		   size_t focus, char *what, size_t what_size)
{
	unsigned int n = 1, i;

	static char none[1];

	/* No room for a description: write it nowhere. */
	if (!what_size) {
		what = none;
		what_size = 1;
	}
	what[0] = '\0';
	if (!fuzz_below(r, 4))
		n++;
	if (!fuzz_below(r, 16))
		n++;
	for (i = 0; i < n; i++)
		len = mutate_once(r, buf, len, cap, focus, what, what_size);
	return len;
}
