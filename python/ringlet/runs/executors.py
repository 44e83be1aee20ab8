"""Where a sweep's runs execute: local worker processes, or a Dask distributed cluster.

An executor takes independent work items and yields ``(index, result, error)``
as each finishes, in whatever order. The caller stores every result the moment
it arrives, so an interrupted or crashed sweep keeps all it has finished. A
run the model rejects is an error for that item only: the others go on.

Past one machine ringlet uses Dask distributed (and dask-jobqueue on HPC
clusters) rather than a scheduler of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator, Optional, Sequence

from ..api.errors import ScenarioError

#: The arguments of one call of the work function; for sweeps (scenario text, overrides).
Item = tuple[Any, ...]
#: (item index, result JSON or None, error message or None)
Completion = tuple[int, Optional[str], Optional[str]]

EXECUTORS = ("local", "dask")

#: Seconds to wait for a Dask scheduler before giving up.
CONNECT_TIMEOUT_S = 5


class ExecutorError(ValueError):
    """An executor that cannot be set up: unknown, not installed, unreachable (one line)."""


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, ScenarioError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _worker_init(parent: int) -> None:
    """Worker processes leave Ctrl-C to the parent (which stops them) and die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # Linux: a parent killed with SIGKILL takes its workers with it
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


class _CtrlCGuard:
    """Holds Ctrl-C (SIGINT) back while this thread is inside concurrent.futures.

    Python runs a signal handler between any two bytecodes, also inside a
    ``with lock:`` whose ``__enter__`` is written in Python (a future's
    condition, a queue's mutex). A KeyboardInterrupt raised there leaves the
    lock held; the process pool's manager thread then blocks on it for good,
    and so does Python's exit, which joins that thread: an interrupted sweep
    that never ends. Inside ``with guard:`` a Ctrl-C is noted and raised when
    the block ends. Elsewhere it raises at once, as Python's own handler does.
    Only the main thread gets signals, and a handler someone else installed
    is left in place.
    """

    def __init__(self) -> None:
        self._depth = 0
        self._pending = False
        self._previous: Any = None

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)

    def uninstall(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self._depth:
            self._pending = True
            return
        raise KeyboardInterrupt

    def __enter__(self) -> None:
        self._depth += 1

    def __exit__(self, kind: Any, *exc: Any) -> None:
        self._depth -= 1
        if self._pending and not self._depth:
            self._pending = False
            if kind is None:  # (an exception on its way out already ends the sweep)
                raise KeyboardInterrupt


class LocalExecutor:
    """Local worker processes (one per core by default); ``processes=1`` runs in this process.

    A worker that dies (killed, out of memory, a crash in the core) breaks the
    process pool: the runs that were on their way to workers are then retried
    one at a time in fresh pools, so the culprit is found and reported as
    failed, and every other run still completes.
    """

    name = "local"

    def __init__(self, processes: Optional[int] = None):
        self.processes = processes or os.cpu_count() or 1
        self._live: set[ProcessPoolExecutor] = set()
        self._guard = _CtrlCGuard()

    def __enter__(self) -> "LocalExecutor":
        self._guard.install()
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            for pool in list(self._live):  # completions abandoned early (an interrupt): stop their workers
                self._finish(pool, ok=False)
        finally:
            self._guard.uninstall()

    def start(self, fn: Callable[..., Any], items: Sequence[Item]) -> Iterator[Completion]:
        """Submits every item now (so workers are forked before any progress-bar
        thread starts) and returns the completions, in finishing order."""
        if self.processes <= 1 or len(items) <= 1:
            return self._serial(fn, items)
        pending = dict.fromkeys(range(len(items)))  # an ordered set, in submission order
        return self._drive(fn, items, pending, self._submit(fn, items, pending))

    def _serial(self, fn: Callable[..., str], items: Sequence[Item]) -> Iterator[Completion]:
        for i, item in enumerate(items):
            try:
                result = fn(*item)
            except Exception as e:  # this point failed; the others still run
                yield i, None, _error_text(e)
            else:
                yield i, result, None

    def _submit(self, fn: Callable[..., str], items: Sequence[Item], pending: dict[int, None],
                workers: Optional[int] = None) -> tuple[ProcessPoolExecutor, dict[Any, int], int]:
        workers = workers or min(self.processes, len(pending))
        with self._guard:
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(os.getpid(),))
            self._live.add(pool)
            return pool, {pool.submit(fn, *items[i]): i for i in pending}, workers

    def _finish(self, pool: ProcessPoolExecutor, ok: bool) -> None:
        with self._guard:
            self._live.discard(pool)
            if ok:
                pool.shutdown(wait=True)
            else:
                self._stop(pool)

    @staticmethod
    def _stop(pool: ProcessPoolExecutor) -> None:
        """Stops ``pool`` without waiting for its running points."""
        manager = getattr(pool, "_executor_manager_thread", None)  # (`shutdown` forgets it)
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            try:
                proc.terminate()  # an interrupted sweep does not wait for its running points
            except (OSError, AttributeError):
                pass
        pool.shutdown(wait=False, cancel_futures=True)
        # Let the pool's manager thread finish now (its workers are gone, so
        # it does at once). Left running, it closes its wake-up pipe while
        # Python's exit handler may be writing to it, unlocked (CPython 3.11),
        # and an interrupted sweep then ends with a traceback.
        if manager is not None and manager.is_alive():  # (not started if Ctrl-C came mid-submit)
            manager.join(timeout=10)

    def _drive(self, fn: Callable[..., str], items: Sequence[Item], pending: dict[int, None],
               batch: tuple[ProcessPoolExecutor, dict[Any, int], int]) -> Iterator[Completion]:
        while True:
            suspects: list[int] = []
            yield from self._collect(batch, pending, suspects)
            for i in suspects:  # one at a time: a run that kills its worker again is the culprit
                del pending[i]
                yield from self._collect(self._submit(fn, items, {i: None}, workers=1), {i: None}, None)
            if not pending:
                return
            batch = self._submit(fn, items, pending)

    def _collect(self, batch: tuple[ProcessPoolExecutor, dict[Any, int], int], pending: dict[int, None],
                 suspects: Optional[list[int]]) -> Iterator[Completion]:
        pool, futures, workers = batch
        ok = False
        try:
            # Each future reports its end on a SimpleQueue, whose `get` a Ctrl-C
            # interrupts holding no lock (it is waited on outside the guard).
            # `concurrent.futures.wait` would take every future's lock on every
            # call, in a Python loop a Ctrl-C can break into.
            finished: queue.SimpleQueue = queue.SimpleQueue()
            with self._guard:
                for f in futures:
                    f.add_done_callback(finished.put)
            for _ in range(len(futures)):
                f = finished.get()
                i = futures[f]
                with self._guard:
                    exc = f.exception()
                    result = f.result() if exc is None else None
                if isinstance(exc, BrokenProcessPool):
                    if suspects is None:  # it ran alone: it is the culprit
                        del pending[i]
                        yield i, None, "the worker process running this point died"
                    else:
                        # Points that finished before the pool broke came
                        # off the queue ahead of this one. The pool hands runs
                        # to its workers in submission order, at most
                        # workers + 1 ahead: the oldest pending runs are suspects.
                        suspects.extend(list(pending)[: workers + 1])
                    break
                del pending[i]
                yield (i, result, None) if exc is None else (i, None, _error_text(exc))
            ok = True
        finally:
            self._finish(pool, ok)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Processes started in this block inherit an ignored SIGINT (Python keeps it ignored)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ExecutorError(
            "--executor dask needs Dask distributed, which is not installed: pip install 'ringlet[dask]'"
        ) from None
    return distributed


class DaskExecutor:
    """Runs on a Dask distributed cluster: the one at ``scheduler`` (an address such
    as ``tcp://host:8786``, or the path of a scheduler file), or a LocalCluster
    of ``workers`` processes started here.

    Dask retries a run whose worker dies on another worker (up to its
    ``distributed.scheduler.allowed-failures``), then reports it as failed.
    Workers need the same ringlet version installed: a result from another
    version is refused by the sweep, not stored.
    """

    name = "dask"

    def __init__(self, scheduler: Optional[str] = None, workers: Optional[int] = None,
                 timeout_s: float = CONNECT_TIMEOUT_S):
        self.scheduler = scheduler
        self.workers = workers
        self.timeout_s = timeout_s
        self._cluster: Any = None
        self._client: Any = None

    def __enter__(self) -> "DaskExecutor":
        distributed = _import_distributed()
        # Dask logs connection retries and shutdown chatter at WARNING: our
        # errors are one line, so only its errors get through.
        logging.getLogger("distributed").setLevel(logging.ERROR)
        try:
            if self.scheduler is None:
                with _sigint_ignored():  # Ctrl-C is for this process, which then closes the cluster
                    self._cluster = distributed.LocalCluster(
                        n_workers=self.workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                        host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR,
                    )
                self._client = distributed.Client(self._cluster)
            elif os.path.isfile(self.scheduler):  # a scheduler file (`dask scheduler --scheduler-file`)
                self._client = distributed.Client(scheduler_file=self.scheduler, timeout=self.timeout_s)
            else:
                self._client = distributed.Client(self.scheduler, timeout=self.timeout_s)
        except (OSError, TimeoutError, ValueError) as e:
            self.__exit__()
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            if self.scheduler is None:
                raise ExecutorError(f"cannot start a local Dask cluster: {reason}") from None
            raise ExecutorError(f"--scheduler {self.scheduler}: cannot reach a Dask scheduler there within "
                                f"{self.timeout_s:g} s ({reason})") from None
        return self

    def __exit__(self, *exc: Any) -> None:
        for thing in (self._client, self._cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # shutting down: nothing left to report to
                    pass
        self._client = self._cluster = None

    def start(self, fn: Callable[..., str], items: Sequence[Item]) -> Iterator[Completion]:
        """Submits every item now and returns the completions, in finishing order."""
        futures = [self._client.submit(fn, text, list(ov), pure=False) for text, ov in items]
        return self._drive(futures)

    def _drive(self, futures: list[Any]) -> Iterator[Completion]:
        from distributed import as_completed

        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for f in as_completed(futures):
                i = index[f.key]
                if f.status == "finished":
                    result = f.result()
                    f.release()
                    yield i, result, None
                else:
                    try:
                        exc = f.exception()
                    except (Exception, asyncio.CancelledError) as e:  # cancelled: the cluster lost it
                        exc = e
                    f.release()
                    yield i, None, _error_text(exc)
        finally:
            self._client.cancel([f for f in futures if not f.done()])


def make_executor(name: str = "local", processes: Optional[int] = None,
                  scheduler: Optional[str] = None) -> "LocalExecutor | DaskExecutor":
    """The executor called ``name``; checks the options before anything starts."""
    if name not in EXECUTORS:
        raise ExecutorError(f"--executor {name}: unknown executor; choose one of: {', '.join(EXECUTORS)}")
    if name == "local":
        if scheduler is not None:
            raise ExecutorError("--scheduler needs --executor dask")
        return LocalExecutor(processes)
    _import_distributed()
    if scheduler is not None and processes is not None:
        raise ExecutorError("--processes does not apply with --scheduler: the cluster has its own workers")
    return DaskExecutor(scheduler, processes)
