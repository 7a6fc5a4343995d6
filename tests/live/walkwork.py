# SPDX-License-Identifier: GPL-2.0-or-later
"""A workload process for test_incremental.py: it acts on its memory only
when told, one command a line on stdin, and answers one line when done,
so it is quiescent while exmtop takes a snapshot.

Commands (addresses in hex):
  alloc N          map N anonymous pages and write each; answers ADDR
  reserve N M      map N anonymous pages and write the first M; answers
                   ADDR (over 256 MiB: exmtop counts its pages mapped
                   once rather than keep their words, core/reuse.c)
  write ADDR N     write N pages from ADDR
  free ADDR N      madvise(MADV_DONTNEED) N pages from ADDR
  mremap ADDR N M  grow the mapping of N pages at ADDR to M (may move);
                   answers the new ADDR, whose pages are then written
  mprotect ADDR N  make N pages read-only
  mapfile PATH     map PATH shared and read each page; answers ADDR
  mapprivate PATH  map PATH private and read each page; answers ADDR
  truncate PATH N  truncate PATH to N pages (another process maps it)
  collapse         map 4 MiB, write its aligned 2 MiB, MADV_COLLAPSE it
                   (tried again while the kernel says EAGAIN or ENOMEM)
  pageout PID ADDR N   process_madvise(MADV_PAGEOUT) of PID's N pages
  poke PID ADDR    PTRACE_POKEDATA one word into PID at ADDR
  fork ADDR N      fork a child that writes N pages from ADDR (copies
                   on write) and waits; answers its pid
  forkdirect ADDR PATH  fork a child that reads PATH with O_DIRECT into
                   the page at ADDR (the copy on write broken by the
                   kernel's get_user_pages, counted as the child's
                   fault); answers its pid
  mergeable N      map N anonymous pages, page i holding the same bytes in
                   every worker, and madvise(MADV_MERGEABLE) them
  reap             end the last child (it exits) and wait for it
  quit
"""

import ctypes
import errno
import mmap
import os
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mremap.restype = ctypes.c_void_p
libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                        ctypes.c_int]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.syscall.restype = ctypes.c_long
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p,
                        ctypes.c_void_p]

PS = os.sysconf("SC_PAGE_SIZE")
PROT_RW = mmap.PROT_READ | mmap.PROT_WRITE
MAP_ANON_PRIV = mmap.MAP_ANONYMOUS | mmap.MAP_PRIVATE
MADV_DONTNEED = 4
MADV_MERGEABLE = 12
MADV_PAGEOUT = 21
MADV_COLLAPSE = 25
SYS_PIDFD_OPEN = 434
SYS_PROCESS_MADVISE = 440
PTRACE_POKEDATA = 5
PTRACE_ATTACH = 16
PTRACE_DETACH = 17
MAP_FAILED = ctypes.c_void_p(-1).value

children = []  # (pid, write end of its pipe)


def check(ret, what):
    if ret == -1 or ret is None or ret == MAP_FAILED:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))
    return ret


def write_pages(addr, n, byte=1):
    for i in range(n):
        ctypes.memset(addr + i * PS, byte + i % 200, 8)


def read_pages(addr, n):
    s = 0
    for i in range(n):
        s += ctypes.c_char.from_address(addr + i * PS).value[0]
    return s


def collapse(addr):
    """MADV_COLLAPSE the 2 MiB at addr. The kernel fails it for a while
    that can pass: EAGAIN when a page is briefly held elsewhere (a
    per-CPU LRU batch, a walker's reference), ENOMEM when no free huge
    page is at hand (then memory is compacted). Either is tried again, up
    to 50 times; any other error, or the last, is the worker's error."""
    for attempt in range(50):
        if libc.madvise(addr, 2 << 20, MADV_COLLAPSE) == 0:
            return
        e = ctypes.get_errno()
        if e not in (errno.EAGAIN, errno.ENOMEM) or attempt == 49:
            raise OSError(e, "MADV_COLLAPSE (attempt %d): %s" %
                          (attempt + 1, os.strerror(e)))
        if e == errno.ENOMEM:
            with open("/proc/sys/vm/compact_memory", "w") as f:
                f.write("1\n")
        time.sleep(0.02)


def map_anon(n):
    return check(libc.mmap(None, n * PS, PROT_RW, MAP_ANON_PRIV, -1, 0),
                 "mmap")


def map_file(path, flags):
    fd = os.open(path, os.O_RDWR)
    n = os.fstat(fd).st_size // PS
    a = check(libc.mmap(None, n * PS, PROT_RW, flags, fd, 0), "mmap")
    os.close(fd)
    read_pages(a, n)
    return a


def child_wait(after):
    """Fork: the child runs after(), tells the parent, and waits for its
    pipe to close; the parent answers the child's pid."""
    r, w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.close(done_r)
        try:
            after()
            os.write(done_w, b"k")
        except Exception as e:  # noqa: BLE001 - said to the parent
            os.write(done_w, ("E%s" % e).encode())
        os.read(r, 1)
        os._exit(0)
    os.close(r)
    os.close(done_w)
    said = os.read(done_r, 200)
    os.close(done_r)
    if said != b"k":
        raise OSError(said.decode())
    children.append((pid, w))
    return pid


def odirect(addr, path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = (ctypes.c_char * PS).from_address(addr)
    n = os.readv(fd, [memoryview(buf).cast("B")])
    os.close(fd)
    if n != PS:
        raise OSError("O_DIRECT read %d bytes" % n)


def run(cmd, a):
    if cmd == "alloc":
        addr = map_anon(int(a[0]))
        write_pages(addr, int(a[0]))
        return "%x" % addr
    if cmd == "reserve":
        addr = map_anon(int(a[0]))
        write_pages(addr, int(a[1]))
        return "%x" % addr
    if cmd == "write":
        write_pages(int(a[0], 16), int(a[1]), 7)
    elif cmd == "free":
        check(libc.madvise(int(a[0], 16), int(a[1]) * PS, MADV_DONTNEED),
              "madvise")
    elif cmd == "mremap":
        addr = check(libc.mremap(int(a[0], 16), int(a[1]) * PS,
                                 int(a[2]) * PS, 1), "mremap")
        write_pages(addr, int(a[2]), 3)
        return "%x" % addr
    elif cmd == "mprotect":
        check(libc.mprotect(int(a[0], 16), int(a[1]) * PS, mmap.PROT_READ),
              "mprotect")
    elif cmd == "mapfile":
        return "%x" % map_file(a[0], mmap.MAP_SHARED)
    elif cmd == "mapprivate":
        return "%x" % map_file(a[0], mmap.MAP_PRIVATE)
    elif cmd == "truncate":
        os.truncate(a[0], int(a[1]) * PS)
    elif cmd == "collapse":
        base = map_anon(1024)
        hp = (base + (2 << 20) - 1) & ~((2 << 20) - 1)
        write_pages(hp, 512)
        collapse(hp)
        return "%x" % hp
    elif cmd == "pageout":
        pfd = check(libc.syscall(SYS_PIDFD_OPEN, int(a[0]), 0), "pidfd_open")
        iov = (ctypes.c_size_t * 2)(int(a[1], 16), int(a[2]) * PS)
        ret = libc.syscall(SYS_PROCESS_MADVISE, pfd, iov, 1, MADV_PAGEOUT, 0)
        os.close(pfd)
        check(ret, "process_madvise")
    elif cmd == "poke":
        pid = int(a[0])
        check(libc.ptrace(PTRACE_ATTACH, pid, None, None), "PTRACE_ATTACH")
        os.waitpid(pid, 0)
        check(libc.ptrace(PTRACE_POKEDATA, pid, int(a[1], 16),
                          0x5a5a5a5a5a5a), "PTRACE_POKEDATA")
        check(libc.ptrace(PTRACE_DETACH, pid, None, None), "PTRACE_DETACH")
    elif cmd == "untouched":
        # anonymous memory whose first page only is written: the others
        # are in a page table that exists, never touched
        addr = map_anon(int(a[0]))
        write_pages(addr, 1)
        return "%x" % addr
    elif cmd in ("peek", "vmwrite"):
        # another process's page read or written through
        # process_vm_readv/writev (get_user_pages in the target's mm)
        buf = ctypes.create_string_buffer(8)
        local = (ctypes.c_size_t * 2)(ctypes.addressof(buf), 8)
        remote = (ctypes.c_size_t * 2)(int(a[1], 16), 8)
        fn = libc.process_vm_readv if cmd == "peek" else \
            libc.process_vm_writev
        if fn(int(a[0]), local, 1, remote, 1, 0) != 8:
            check(-1, cmd)
    elif cmd == "fork":
        addr, n = int(a[0], 16), int(a[1])
        return "%d" % child_wait(lambda: write_pages(addr, n, 9))
    elif cmd == "forkdirect":
        addr, path = int(a[0], 16), a[1]
        return "%d" % child_wait(lambda: odirect(addr, path))
    elif cmd == "mergeable":
        n = int(a[0])
        addr = map_anon(n)
        for i in range(n):
            ctypes.memset(addr + i * PS, 0x40 + i % 64, PS)
            ctypes.memset(addr + i * PS, i // 64 + 1, 1)
        check(libc.madvise(addr, n * PS, MADV_MERGEABLE), "MADV_MERGEABLE")
        return "%x" % addr
    elif cmd == "reap":
        pid, w = children.pop()
        os.close(w)
        os.waitpid(pid, 0)
    else:
        raise OSError("unknown command " + cmd)
    return ""


def main():
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        try:
            out = "ok " + run(words[0], words[1:])
        except OSError as e:
            out = "error %s" % e
        sys.stdout.write(out.strip() + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
