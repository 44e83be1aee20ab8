"""Output files: written whole or not at all, without replacing what is not a regular file."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from ringlet._files import check_out_file, is_special, write_atomic


class Refused(Exception):
    pass


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_regular_file_is_replaced_whole(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old")
    write_atomic(out, "new\n", Refused)
    assert out.read_text() == "new\n" and leftovers(tmp_path) == []
    # A writer that fails leaves the old file and no temporary one.
    def broken(path: Path) -> None:
        path.write_text("half")
        raise OSError(28, "No space left on device")
    with pytest.raises(Refused, match=r"^--csv .*out.txt: cannot write: No space left on device$"):
        write_atomic(out, broken, Refused, option="--csv")
    assert out.read_text() == "new\n" and leftovers(tmp_path) == []


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
    assert is_special(fifo) and check_out_file(fifo, Refused) == fifo
    write_atomic(fifo, "through the pipe\n", Refused)
    reader.join(timeout=30)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_device_that_fails_is_reported_and_kept():
    full = Path("/dev/full")
    assert is_special(full)
    with pytest.raises(Refused, match=r"^--out /dev/full: cannot write: No space left on device$"):
        write_atomic(full, "x" * 100_000, Refused)
    assert stat.S_ISCHR(os.stat(full).st_mode)  # still the device, not a regular file


def test_regular_files_and_folders_are_not_special(tmp_path):
    (tmp_path / "f").write_text("x")
    assert not is_special(tmp_path / "f") and not is_special(tmp_path) and not is_special(tmp_path / "missing")
    assert is_special("/dev/null")
