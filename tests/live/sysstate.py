# SPDX-License-Identifier: GPL-2.0-or-later
"""Changes a test makes to the machine, always undone.

A test that changes the system (a /proc/sys or /sys knob such as the THP
mode, nr_hugepages or KSM's run; a swap file; a user; a cgroup) makes the
change through this module:

    with sysstate.Changes("test_hugetlb") as ch:
        ch.write("/proc/sys/vm/nr_hugepages", "64")
        path = ch.swapfile(64 << 20)
        ...

Before a change is made, what undoes it is appended to a journal,
/run/exmtop-tests/NAME.json. Leaving the block (normally, by an exception,
or by SIGTERM, SIGHUP or SIGINT, which exmlive turns into an exit) undoes
every change in reverse order and removes the journal. A run killed with
SIGKILL leaves its journal behind: the next Changes() of any test, or
`python3 tests/live/sysstate.py recover` (scripts/test runs it first),
undoes what it names.

A shell test runs itself under the same journal through the command line:

    sysstate.py run NAME [--cgroup2-mount DIR] [--cgroup PATH]...
        [--memory-cgroup NAME] -- CMD...

makes the changes (a cgroup2 hierarchy mounted on DIR, made for the
purpose; cgroup directories; a cgroup NAME under the memory controller,
Changes.memory_cgroup, its path given to CMD in EXM_TEST_MEMCG, empty
where there is no memory controller), runs CMD, undoes them when CMD ends or when
this process is ended by a signal (CMD is ended first), and exits with
CMD's status.

One machine-wide lock (/run/exmtop-tests/lock) is held while changes are
in effect, so two test runs on one machine (two checkouts, a developer and
CI) never change the same setting at once; a journal found while holding
the lock belongs to a run that died.
"""

import fcntl
import json
import os
import subprocess
import sys
import tempfile

STATE_DIR = os.environ.get("EXMTOP_TEST_STATE", "/run/exmtop-tests")


def knob_value(text):
    """The current value of a knob as it must be written back: the
    bracketed choice of a selector file ("always [madvise] never" gives
    "madvise"), else the text without its trailing newline."""
    text = text.strip()
    if "[" in text and "]" in text:
        return text[text.index("[") + 1:text.index("]")]
    return text


def swap_active():
    """Whether any swap area is on (/proc/swaps lists more than its
    header)."""
    with open("/proc/swaps") as f:
        return len(f.read().strip().splitlines()) > 1


def read_knob(path):
    with open(path) as f:
        return knob_value(f.read())


def _write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def _undo(entry):
    """Undo one journal entry; errors are reported, not raised, so that
    every other entry is still undone."""
    kind = entry["kind"]
    try:
        if kind == "write":
            _write(entry["path"], entry["value"])
        elif kind == "swap":
            subprocess.run(["swapoff", entry["path"]],
                           stderr=subprocess.DEVNULL)
            if os.path.exists(entry["path"]):
                os.unlink(entry["path"])
        elif kind == "user":
            subprocess.run(["userdel", entry["name"]],
                           stderr=subprocess.DEVNULL)
        elif kind == "cgroup":
            path = entry["path"]
            if os.path.isdir(path):
                # kill what is left in it (cgroup.kill: Linux 5.14+), then
                # remove it once it is empty
                try:
                    _write(os.path.join(path, "cgroup.kill"), "1")
                except OSError:
                    pass
                for _ in range(200):
                    try:
                        os.rmdir(path)
                        break
                    except OSError:
                        import time
                        time.sleep(0.01)
        elif kind == "dir":
            if os.path.isdir(entry["path"]):
                os.rmdir(entry["path"])
        elif kind == "file":
            if os.path.lexists(entry["path"]):
                os.unlink(entry["path"])
        elif kind == "cmd":
            subprocess.run(entry["argv"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        else:
            print("sysstate: unknown journal entry %r" % entry,
                  file=sys.stderr)
    except OSError as e:
        print("sysstate: could not undo %r: %s" % (entry, e),
              file=sys.stderr)


def _journals():
    try:
        names = os.listdir(STATE_DIR)
    except FileNotFoundError:
        return []
    return [os.path.join(STATE_DIR, n) for n in sorted(names)
            if n.endswith(".json")]


def _recover_locked():
    """Undo what runs that died left behind (the lock is held)."""
    for path in _journals():
        try:
            with open(path) as f:
                entries = json.load(f)
        except (OSError, ValueError):
            entries = []
        for entry in reversed(entries):
            print("sysstate: undoing a killed run's change: %r" % entry,
                  file=sys.stderr)
            _undo(entry)
        os.unlink(path)


class _Lock:
    def __init__(self, how=fcntl.LOCK_EX):
        os.makedirs(STATE_DIR, exist_ok=True)
        self.fd = os.open(os.path.join(STATE_DIR, "lock"),
                          os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self.fd, how)

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def recover():
    lock = _Lock()
    try:
        _recover_locked()
    finally:
        lock.release()


class Steady:
    """While in this block no test run changes the machine's settings
    (the lock, shared): for a test whose figures move with them, e.g.
    oom_score with the total of swap, which another run's swap file (a
    mutation check's live test beside this one) would move."""

    def __enter__(self):
        self.lock = _Lock(fcntl.LOCK_SH)
        return self

    def __exit__(self, *exc):
        self.lock.release()
        return False


class Changes:
    """A set of changes to the machine, undone on leaving the block."""

    def __init__(self, name):
        self.name = name
        self.entries = []
        self.lock = None
        self.journal = None

    def __enter__(self):
        self.lock = _Lock()
        _recover_locked()
        self.journal = os.path.join(STATE_DIR, "%s.%d.json" %
                                    (self.name, os.getpid()))
        self._save()
        return self

    def __exit__(self, *exc):
        self.undo_all()
        return False

    def _save(self):
        tmp = self.journal + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.entries, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.journal)

    def _journal(self, entry):
        self.entries.append(entry)
        self._save()

    def undo_all(self):
        while self.entries:
            _undo(self.entries[-1])
            self.entries.pop()
            self._save()
        if self.journal and os.path.exists(self.journal):
            os.unlink(self.journal)
        if self.lock:
            self.lock.release()
            self.lock = None

    # ---- the changes ----

    def write(self, path, value):
        """Write value to a knob, restoring its present value after."""
        old = read_knob(path)
        if old == str(value):
            return
        self._journal({"kind": "write", "path": path, "value": old})
        _write(path, value)

    def swapfile(self, size, directory="/var/tmp"):
        """A swap file of size bytes, enabled; swapped off and removed
        after. Returns its path; raises RuntimeError when swapon refuses
        (the caller decides what that means for the test)."""
        fd, path = tempfile.mkstemp(prefix="exm-test-swap-", dir=directory)
        self._journal({"kind": "swap", "path": path})
        with os.fdopen(fd, "wb") as f:
            chunk = b"\0" * (1 << 20)  # no holes: swapon refuses them
            for _ in range(size >> 20):
                f.write(chunk)
        os.chmod(path, 0o600)
        subprocess.run(["mkswap", path], check=True,
                       stdout=subprocess.DEVNULL)
        r = subprocess.run(["swapon", path], stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError("swapon refused: %s" %
                               r.stderr.decode().strip())
        return path

    def user(self, name):
        """A system user that exists only for the test (removed after);
        an existing user is used as it is."""
        r = subprocess.run(["id", "-u", name], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            return
        self._journal({"kind": "user", "name": name})
        subprocess.run(["useradd", "--system", "--no-create-home",
                        "--shell", "/usr/sbin/nologin", name], check=True)

    def cgroup(self, path):
        """A cgroup v2 directory made for the test; what is left in it
        is killed and the directory removed after."""
        self._journal({"kind": "cgroup", "path": path})
        os.makedirs(path, exist_ok=True)
        return path

    def memory_cgroup(self, name):
        """A new cgroup NAME under the memory controller (v2 where a
        cgroup2 mount has it, enabling it for the children there; else
        v1's) and the name of its limit file, or (None, None). Enabling the
        controller is undone after, like every other change."""
        with open("/proc/self/mounts") as f:
            mounts = [ln.split() for ln in f]
        for m in mounts:
            if m[2] != "cgroup2":
                continue
            try:
                with open(os.path.join(m[1], "cgroup.controllers")) as f:
                    if "memory" not in f.read().split():
                        continue
                sc = os.path.join(m[1], "cgroup.subtree_control")
                if "memory" not in read_knob(sc).split():
                    # undone after the cgroup below is removed (the
                    # journal is undone last entry first)
                    self._journal({"kind": "write", "path": sc,
                                   "value": "-memory"})
                    _write(sc, "+memory")
                return self.cgroup(os.path.join(m[1], name)), "memory.max"
            except OSError:
                pass
        for m in mounts:
            if m[2] == "cgroup" and "memory" in m[3].split(","):
                return self.cgroup(os.path.join(m[1], name)), \
                    "memory.limit_in_bytes"
        return None, None

    def file(self, path):
        """A file the test creates (removed after)."""
        self._journal({"kind": "file", "path": path})
        return path

    def directory(self, path):
        """An empty directory the test creates (removed after)."""
        self._journal({"kind": "dir", "path": path})
        os.makedirs(path, exist_ok=True)
        return path

    def command(self, argv, undo_argv):
        """Run argv now and undo_argv after."""
        self._journal({"kind": "cmd", "argv": list(undo_argv)})
        subprocess.run(argv, check=True)


def _usage():
    print("usage: sysstate.py recover\n"
          "       sysstate.py run NAME [--cgroup2-mount DIR] "
          "[--cgroup PATH]... [--memory-cgroup NAME] -- CMD...",
          file=sys.stderr)
    sys.exit(2)


def _ended(signum, frame):
    sys.exit(128 + signum)


def run(args):
    """sysstate.py run (see the top): CMD's exit status."""
    import signal
    if len(args) < 3 or "--" not in args:
        _usage()
    name, opts, cmd = args[0], args[1:args.index("--")], \
        args[args.index("--") + 1:]
    if not cmd or len(opts) % 2 or any(o not in ("--cgroup2-mount",
                                                  "--cgroup",
                                                  "--memory-cgroup")
                                       for o in opts[::2]):
        _usage()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _ended)
    child = None
    env = dict(os.environ)
    with Changes(name) as ch:
        try:
            for opt, path in zip(opts[::2], opts[1::2]):
                if opt == "--cgroup2-mount":
                    ch.directory(path)
                    ch.command(["mount", "-t", "cgroup2", "none", path],
                               ["umount", path])
                elif opt == "--memory-cgroup":
                    env["EXM_TEST_MEMCG"] = ch.memory_cgroup(path)[0] or ""
                else:
                    ch.cgroup(path)
            child = subprocess.Popen(cmd, env=env)
            rc = child.wait()
            return 128 - rc if rc < 0 else rc
        finally:
            # ended by a signal: end CMD first (its own traps run)
            if child is not None and child.poll() is None:
                child.terminate()
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["recover"]:
        recover()
    elif sys.argv[1:2] == ["run"]:
        sys.exit(run(sys.argv[2:]))
    else:
        _usage()
