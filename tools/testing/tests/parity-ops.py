#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""parity-ops.py [--acl] DIR: run the parity test's file-system operations in DIR
(a directory on an NFS mount) and print one line per case: its name, then
what each step returned.  The test runs it once over TCP and once over RDMA
and compares the lines; nothing here knows which transport it is on.

Cases:
  xattr-SIZE   set, get (compared with what was set), list, remove a user
               xattr of SIZE bytes on a file of its own
  xattr-many   200 user xattrs of 100 bytes on one file, listed and read
  symlink-N    a symlink whose target is N bytes, read back
  name-255     a file with a 255-byte name: created, found, removed
  readdir-N    N entries with 200-byte names, listed (count and names)
  direct-odd   O_DIRECT writes and reads at odd offsets and lengths
  mmap-odd     a file written through a shared mapping, read back
  seek         SEEK_DATA and SEEK_HOLE on a file with a hole
  fallocate    preallocate, punch a hole, read back (ALLOCATE, DEALLOCATE)
  copy         copy_file_range within the mount (NFSv4.2 COPY)
  clone        FICLONE within the mount (CLONE; ext4 has no reflinks)
  lock         a byte-range write lock taken, tested, released
  nfs4acl-N    an NFSv4 ACL of OWNER@, N named users, GROUP@ and EVERYONE@
               set through the system.nfs4_acl xattr (SETATTR) and read
               back (GETATTR: the server's own rendering, which it may
               expand; at N=400 a reply far past any inline size)
With --acl (an NFSv3 mount: the NFSACL side protocol), only:
  acl-N        a POSIX access ACL of N named-user entries set with
               setfacl and read back with getfacl
"""
import errno
import fcntl
import hashlib
import mmap
import os
import random
import subprocess
import sys

XATTR_SIZES = [1, 1000, 3000, 4000, 4095, 4096, 4097, 8192, 12000, 16384,
               32768, 60000, 65536]


def result(fn):
    """0 and the value, or the errno's name and None."""
    try:
        return "0", fn()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno)), None


def value(size, seed):
    return random.Random(seed).randbytes(size)


def xattr_case(d, size):
    path = os.path.join(d, "x%d" % size)
    with open(path, "w"):
        pass
    want = value(size, size)
    st_set, _ = result(lambda: os.setxattr(path, "user.v", want))
    st_get, got = result(lambda: os.getxattr(path, "user.v"))
    same = "same" if got == want else ("none" if got is None else
                                       "differs(%d)" % len(got))
    st_list, names = result(lambda: os.listxattr(path))
    listed = "listed" if names and "user.v" in names else "unlisted"
    st_rm, _ = result(lambda: os.removexattr(path, "user.v"))
    os.unlink(path)
    return "set=%s get=%s:%s list=%s:%s remove=%s" % (
        st_set, st_get, same, st_list, listed, st_rm)


def xattr_many(d, count=200, size=100):
    path = os.path.join(d, "xmany")
    with open(path, "w"):
        pass
    errs = set()
    for i in range(count):
        st, _ = result(lambda: os.setxattr(path, "user.a%03d" % i,
                                           value(size, 1000 + i)))
        if st != "0":
            errs.add(st)
    st_list, names = result(lambda: os.listxattr(path))
    n = len([x for x in names or [] if x.startswith("user.a")])
    bad = 0
    for i in range(count):
        st, got = result(lambda: os.getxattr(path, "user.a%03d" % i))
        if got != value(size, 1000 + i):
            bad += 1
    os.unlink(path)
    return "set-errors=%s list=%s:%d read-wrong=%d" % (
        ",".join(sorted(errs)) or "none", st_list, n, bad)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def symlink_case(d, n):
    path = os.path.join(d, "l%d" % n)
    target = ("t" * (n - 1)) + "/"
    st_make, _ = result(lambda: os.symlink(target, path))
    st_read, got = result(lambda: os.readlink(path))
    same = "same" if got == target else ("none" if got is None else
                                         "differs(%d)" % len(got))
    result(lambda: os.unlink(path))
    return "symlink=%s readlink=%s:%s" % (st_make, st_read, same)


def name_case(d):
    name = ("n" * 254) + "x"
    path = os.path.join(d, name)
    st_make, _ = result(lambda: open(path, "w").close())
    found = "found" if name in os.listdir(d) else "missing"
    st_rm, _ = result(lambda: os.unlink(path))
    return "create=%s %s unlink=%s" % (st_make, found, st_rm)


def readdir_case(d, n):
    sub = os.path.join(d, "dir%d" % n)
    os.mkdir(sub)
    names = ["%05d-" % i + "e" * 194 for i in range(n)]
    for name in names:
        open(os.path.join(sub, name), "w").close()
    got = sorted(os.listdir(sub))
    h = hashlib.sha256("\n".join(got).encode()).hexdigest()[:16]
    ok = "same" if got == sorted(names) else "differs"
    for name in names:
        os.unlink(os.path.join(sub, name))
    os.rmdir(sub)
    return "entries=%d names=%s:%s" % (len(got), ok, h)


def direct_case(d):
    path = os.path.join(d, "direct")
    ref = bytearray(value(3 * 1048576 + 12345, 7))
    steps = []
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_DIRECT, 0o644)
    try:
        for off, ln in ((1, 1), (4095, 3), (4097, 4095), (65535, 4097),
                        (131071, 131073), (1048575, 1048577),
                        (3000001, 65537)):
            st, n = result(lambda: os.pwrite(fd, bytes(ref[off:off + ln]), off))
            steps.append("%s/%s" % (st, n))
        size = os.fstat(fd).st_size
        st, data = result(lambda: os.pread(fd, size, 0))
    finally:
        os.close(fd)
    os.unlink(path)
    return "writes=%s read=%s:%s" % (
        ",".join(steps), st,
        hashlib.sha256(data or b"").hexdigest()[:16])


def mmap_case(d):
    path = os.path.join(d, "mapped")
    size = 3 * 4096 + 1234
    want = value(size, 11)
    with open(path, "w+b") as f:
        f.truncate(size)
        m = mmap.mmap(f.fileno(), size)
        m[:] = want
        m.flush()
        m.close()
    with open(path, "rb") as f:
        got = f.read()
    os.unlink(path)
    return "mapped=%s" % ("same" if got == want else "differs")


def seek_case(d):
    path = os.path.join(d, "holey")
    with open(path, "wb") as f:
        f.write(b"a" * 4096)
        f.seek(8 * 1048576)
        f.write(b"b" * 4096)
    fd = os.open(path, os.O_RDONLY)
    try:
        st_d, data = result(lambda: os.lseek(fd, 4096, os.SEEK_DATA))
        st_h, hole = result(lambda: os.lseek(fd, 0, os.SEEK_HOLE))
    finally:
        os.close(fd)
    os.unlink(path)
    return "data=%s:%s hole=%s:%s" % (st_d, data, st_h, hole)


def fallocate_case(d):
    path = os.path.join(d, "falloc")
    with open(path, "wb") as f:
        f.write(value(1048576, 13))
    fd = os.open(path, os.O_RDWR)
    try:
        st_a, _ = result(lambda: os.posix_fallocate(fd, 0, 4 * 1048576))
    finally:
        os.close(fd)
    p = subprocess.run(["fallocate", "-p", "-o", "4096", "-l", "65536", path],
                       capture_output=True)
    out = "allocate=%s size=%d punch=%s content=%s" % (
        st_a, os.stat(path).st_size, p.returncode, digest(path))
    os.unlink(path)
    return out


def copy_case(d):
    src, dst = os.path.join(d, "csrc"), os.path.join(d, "cdst")
    with open(src, "wb") as f:
        f.write(value(2 * 1048576 + 777, 17))
    fi, fo = os.open(src, os.O_RDONLY), os.open(dst, os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        st, n = result(lambda: os.copy_file_range(fi, fo, 2 * 1048576 + 777))
    finally:
        os.close(fi)
        os.close(fo)
    out = "copy=%s:%s same=%s" % (st, n, digest(src) == digest(dst))
    os.unlink(src)
    os.unlink(dst)
    return out


def clone_case(d):
    src, dst = os.path.join(d, "ksrc"), os.path.join(d, "kdst")
    with open(src, "wb") as f:
        f.write(value(65536, 19))
    FICLONE = 0x40049409
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        st, _ = result(lambda: fcntl.ioctl(fo.fileno(), FICLONE, fi.fileno()))
    os.unlink(src)
    os.unlink(dst)
    return "clone=%s" % st


def lock_case(d):
    path = os.path.join(d, "locked")
    with open(path, "w+") as f:
        f.write("x" * 8192)
        f.flush()
        st_l, _ = result(lambda: fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB, 4096, 100))
        st_u, _ = result(lambda: fcntl.lockf(f, fcntl.LOCK_UN, 4096, 100))
    os.unlink(path)
    return "lock=%s unlock=%s" % (st_l, st_u)


# NFSv4 ACE types, flags and mask bits (RFC 8881 section 6.2.1).
ACE4_ALLOW = 0
ACE4_IDENTIFIER_GROUP = 0x40
# READ_DATA, READ_NAMED_ATTRS, READ_ATTRIBUTES, READ_ACL, SYNCHRONIZE.
ACE4_READ = 0x00120089
ACE4_ALL = 0x001f01ff


def xdr_ace(kind, flag, mask, who):
    w = who.encode()
    pad = b"\0" * ((4 - len(w) % 4) % 4)
    return (kind.to_bytes(4, "big") + flag.to_bytes(4, "big") +
            mask.to_bytes(4, "big") + len(w).to_bytes(4, "big") + w + pad)


def nfs4acl_case(d, n):
    path = os.path.join(d, "nfs4acl%d" % n)
    open(path, "w").close()
    aces = [xdr_ace(ACE4_ALLOW, 0, ACE4_ALL, "OWNER@")]
    aces += [xdr_ace(ACE4_ALLOW, 0, ACE4_READ, "%d" % (3000 + i))
             for i in range(n)]
    aces += [xdr_ace(ACE4_ALLOW, ACE4_IDENTIFIER_GROUP, ACE4_READ, "GROUP@"),
             xdr_ace(ACE4_ALLOW, 0, ACE4_READ, "EVERYONE@")]
    blob = len(aces).to_bytes(4, "big") + b"".join(aces)
    st_set, _ = result(lambda: os.setxattr(path, "system.nfs4_acl", blob))
    st_get, got = result(lambda: os.getxattr(path, "system.nfs4_acl"))
    count = int.from_bytes(got[:4], "big") if got and len(got) >= 4 else -1
    os.unlink(path)
    return "set=%s get=%s aces=%d bytes=%d content=%s" % (
        st_set, st_get, count, len(got or b""),
        hashlib.sha256(got or b"").hexdigest()[:16])


def acl_case(d, n):
    path = os.path.join(d, "acl%d" % n)
    open(path, "w").close()
    spec = ",".join("u:%d:r%s" % (2000 + i, "w" if i % 2 else "-")
                    for i in range(n))
    p = subprocess.run(["setfacl", "-m", spec, path], capture_output=True)
    g = subprocess.run(["getfacl", "-c", "-n", path], capture_output=True)
    entries = g.stdout.decode().count("user:2")
    out = "setfacl=%d getfacl=%d entries=%d content=%s" % (
        p.returncode, g.returncode, entries,
        hashlib.sha256(g.stdout).hexdigest()[:16])
    os.unlink(path)
    return out


def main():
    if sys.argv[1] == "--acl":
        for n in (10, 100, 300, 340, 500, 1000):
            print("acl-%d %s" % (n, acl_case(sys.argv[2], n)), flush=True)
        return
    d = sys.argv[1]
    for size in XATTR_SIZES:
        print("xattr-%d %s" % (size, xattr_case(d, size)), flush=True)
    print("xattr-many %s" % xattr_many(d), flush=True)
    for n in (1000, 3000, 4095):
        print("symlink-%d %s" % (n, symlink_case(d, n)), flush=True)
    print("name-255 %s" % name_case(d), flush=True)
    print("readdir-500 %s" % readdir_case(d, 500), flush=True)
    print("direct-odd %s" % direct_case(d), flush=True)
    print("mmap-odd %s" % mmap_case(d), flush=True)
    print("seek %s" % seek_case(d), flush=True)
    print("fallocate %s" % fallocate_case(d), flush=True)
    print("copy %s" % copy_case(d), flush=True)
    print("clone %s" % clone_case(d), flush=True)
    print("lock %s" % lock_case(d), flush=True)
    for n in (10, 100, 400):
        print("nfs4acl-%d %s" % (n, nfs4acl_case(d, n)), flush=True)


if __name__ == "__main__":
    main()
