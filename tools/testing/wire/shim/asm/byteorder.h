/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <asm/byteorder.h>: 32-bit swaps. */
#ifndef NFSRDMA_WIRE_SHIM_ASM_BYTEORDER_H
#define NFSRDMA_WIRE_SHIM_ASM_BYTEORDER_H

#include <linux/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline u32 be32_to_cpu(__be32 x)
{
	return __builtin_bswap32(x);
}

static inline __be32 cpu_to_be32(u32 x)
{
	return __builtin_bswap32(x);
}
#else
static inline u32 be32_to_cpu(__be32 x)
{
	return x;
}

static inline __be32 cpu_to_be32(u32 x)
{
	return x;
}
#endif

#endif /* NFSRDMA_WIRE_SHIM_ASM_BYTEORDER_H */
