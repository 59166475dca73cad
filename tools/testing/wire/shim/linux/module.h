/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/module.h>.  Module metadata
 * means nothing here.  Each macro expands to a harmless file-scope
 * declaration so the semicolon after it stays legal.
 */
#ifndef NFSRDMA_WIRE_SHIM_LINUX_MODULE_H
#define NFSRDMA_WIRE_SHIM_LINUX_MODULE_H

#define EXPORT_SYMBOL_GPL(sym)	extern int nfsrdma_wire_shim_modinfo
#define MODULE_LICENSE(s)	extern int nfsrdma_wire_shim_modinfo
#define MODULE_DESCRIPTION(s)	extern int nfsrdma_wire_shim_modinfo
#define MODULE_AUTHOR(s)	extern int nfsrdma_wire_shim_modinfo

#endif /* NFSRDMA_WIRE_SHIM_LINUX_MODULE_H */
