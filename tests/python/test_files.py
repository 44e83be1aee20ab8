"""Output files: written whole or not at all, without replacing what is not a regular file.

FIFOs stand for devices and pipes here: a test never writes to /dev/stdout or
/dev/full, which a regression would replace on the machine running it."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from ringlet.files import check_out_file, in_place, write_atomic, write_together


class Refused(Exception):
    pass


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".old")))


def test_a_regular_file_is_replaced_whole(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old")
    write_atomic(out, "new\n", Refused)
    assert out.read_text() == "new\n" and leftovers(tmp_path) == []
    write_atomic(out, b"\x00bytes", Refused)
    assert out.read_bytes() == b"\x00bytes" and leftovers(tmp_path) == []


def test_a_failed_rename_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    out = tmp_path / "out.txt"
    out.write_text("old")
    def refuse(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(Refused, match=r"^--csv .*out.txt: cannot write: No space left on device$"):
        write_atomic(out, "new", Refused, option="--csv")
    assert out.read_text() == "old" and leftovers(tmp_path) == []


def test_a_symbolic_link_stays_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "data.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert check_out_file(link, Refused) == link
    write_atomic(link, "new", Refused)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "real") == []
    # A dangling link: the file it names is created, in the link target's folder.
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "real" / "later.csv")
    write_atomic(dangling, "made", Refused)
    assert dangling.is_symlink() and (tmp_path / "real" / "later.csv").read_text() == "made"
    # One whose folder does not exist is refused before any work, naming it.
    lost = tmp_path / "lost.csv"
    lost.symlink_to(tmp_path / "nowhere" / "x.csv")
    with pytest.raises(Refused, match=r"directory .*nowhere does not exist"):
        check_out_file(lost, Refused)


def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert in_place(fifo) and check_out_file(fifo, Refused) == fifo
    write_atomic(fifo, "through the pipe\n", Refused)
    reader.join(timeout=30)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_pipe_that_fails_is_reported_and_kept(tmp_path):
    """The reader goes away unread: the write fails (a broken pipe, as a full
    device would fail), is reported naming the option, and the FIFO stays."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    def reader() -> None:
        with open(fifo, "rb"):
            pass  # closes without reading: more than a pipe buffer is waiting
    t = threading.Thread(target=reader)
    t.start()
    with pytest.raises(Refused, match=r"^--csv .*pipe: cannot write: Broken pipe$"):
        write_atomic(fifo, "x" * 1_000_000, Refused, option="--csv")
    t.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_descriptor_name_is_written_through_the_descriptor(tmp_path):
    """``/dev/fd/N`` (``/dev/stdout`` is ``/dev/fd/1``) writes to the open
    descriptor: a file opened for appending keeps what it had (reopening the
    name would truncate it)."""
    log = tmp_path / "log.txt"
    log.write_text("kept\n")
    with open(log, "a") as f:
        name = f"/dev/fd/{f.fileno()}"
        assert in_place(name)
        write_atomic(Path(name), "appended\n", Refused)
    assert log.read_text() == "kept\nappended\n"
    # The same through a link of one's own, and through /proc/self.
    link = tmp_path / "to-fd"
    with open(log, "a") as f:
        link.symlink_to(f"/proc/self/fd/{f.fileno()}")
        write_atomic(link, "again\n", Refused)
    assert log.read_text() == "kept\nappended\nagain\n" and link.is_symlink()
    assert in_place("/dev/stdout") and in_place(f"/proc/{os.getpid()}/fd/0")


def test_regular_files_and_folders_are_not_special(tmp_path):
    (tmp_path / "f").write_text("x")
    assert not in_place(tmp_path / "f") and not in_place(tmp_path) and not in_place(tmp_path / "missing")
    assert in_place("/dev/null")


# -- several files, all or none (a sweep's tables) ---------------------------------


def everything(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def refuse_unlink(monkeypatch, name: str) -> None:
    """``os.unlink`` fails with "Permission denied" for files called ``name`` (others go)."""
    real = os.unlink
    def refusing(path, *a, **k):
        if Path(path).name == name:
            raise OSError(13, "Permission denied")
        real(path, *a, **k)
    monkeypatch.setattr(os, "unlink", refusing)


def refuse_rename(monkeypatch, name: str) -> None:
    """Renaming a temporary file onto a file called ``name`` fails with "No space left on device"."""
    real = os.replace
    def refusing(src, dst):
        if Path(dst).name == name and str(src).endswith(".tmp"):
            raise OSError(28, "No space left on device")
        real(src, dst)
    monkeypatch.setattr(os, "replace", refusing)


def test_files_written_together_replace_the_old_ones_and_drop_the_stale(tmp_path):
    (tmp_path / "a.csv").write_text("old a")
    (tmp_path / "stale.csv").write_text("old stale")
    write_together([(tmp_path / "a.csv", "new a"), (tmp_path / "b.parquet", b"new b")], Refused,
                   remove=[tmp_path / "stale.csv", tmp_path / "never-there.csv"])
    assert everything(tmp_path) == {"a.csv": "new a", "b.parquet": "new b"}


def test_a_failed_rename_of_the_second_file_puts_the_first_back(tmp_path, monkeypatch):
    (tmp_path / "a.csv").write_text("old a")
    (tmp_path / "b.parquet").write_text("old b")
    (tmp_path / "stale.csv").write_text("old stale")
    refuse_rename(monkeypatch, "b.parquet")
    with pytest.raises(Refused, match=r"--out .*b\.parquet: cannot write: No space left on device"):
        write_together([(tmp_path / "a.csv", "new a"), (tmp_path / "b.parquet", "new b")], Refused,
                       remove=[tmp_path / "stale.csv"])
    # Nothing changed: the first file's old content is back, the stale one kept, nothing left over.
    assert everything(tmp_path) == {"a.csv": "old a", "b.parquet": "old b", "stale.csv": "old stale"}


def test_a_failed_removal_undoes_the_files_already_in_place(tmp_path, monkeypatch):
    (tmp_path / "stale.csv").write_text("old stale")
    refuse_unlink(monkeypatch, "stale.csv")
    with pytest.raises(Refused, match=r"stale\.csv: cannot write: Permission denied"):
        write_together([(tmp_path / "a.csv", "new a")], Refused, remove=[tmp_path / "stale.csv"])
    # a.csv did not exist before, so it is gone again.
    assert everything(tmp_path) == {"stale.csv": "old stale"}


def test_files_written_together_follow_a_link(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old")
    (tmp_path / "link.csv").symlink_to(real)
    write_together([(tmp_path / "link.csv", "new")], Refused)
    assert (tmp_path / "link.csv").is_symlink() and real.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


def test_a_stale_link_put_back_after_a_failure_is_still_a_link(tmp_path, monkeypatch):
    real = tmp_path / "elsewhere.csv"
    real.write_text("kept")
    (tmp_path / "stale.csv").symlink_to(real)
    (tmp_path / "stale2.csv").write_text("old 2")
    refuse_unlink(monkeypatch, "stale2.csv")  # the link is gone by then, and must come back
    with pytest.raises(Refused, match=r"stale2\.csv"):
        write_together([(tmp_path / "a.csv", "new a")], Refused, remove=[tmp_path / "stale.csv", tmp_path / "stale2.csv"])
    assert (tmp_path / "stale.csv").is_symlink() and (tmp_path / "stale.csv").read_text() == "kept"
    assert everything(tmp_path) == {"elsewhere.csv": "kept", "stale.csv": "kept", "stale2.csv": "old 2"}
