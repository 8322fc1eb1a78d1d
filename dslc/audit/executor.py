"""Where chunks run: local worker processes, a Ray cluster or a Dask cluster.

Every executor has ``submit(fn, *args) -> handle`` and ``result(handle)``,
``close()``.  The implementation under audit never runs in dslc's own
process: ``-j 1`` is one worker process.  Local workers are started with
``forkserver`` (``spawn`` where there is none), so they share no state with
dslc's process.
"""

from __future__ import annotations

import multiprocessing
import os


class ExecutorError(Exception):
    """The executor could not be started (exit 2)."""


class _Futures:
    """Executors whose handles are futures (concurrent.futures, Dask)."""

    @staticmethod
    def result(handle, timeout=None):
        return handle.result(timeout=timeout)

    @staticmethod
    def cancel(handle) -> None:
        handle.cancel()


class LocalExecutor(_Futures):
    name = "local"

    def __init__(self, jobs: int):
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        method = "forkserver" if "forkserver" in methods else "spawn"
        self.jobs = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method))

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    @property
    def workers(self) -> int:
        return self.jobs

    def close(self, now: bool = False) -> None:
        """Stop the workers; with ``now`` (the time budget ran out) without
        waiting for a chunk that is still running: its process is ended."""
        if now:
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            return
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(_Futures):
    name = "dask"

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError("--executor dask needs Dask: pip install 'dslc[cluster]'") from None
        try:
            self.client = Client(address, timeout=10)
        except Exception as exc:  # noqa: BLE001 - a cluster that is not there
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {exc}") from None

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    @property
    def workers(self) -> int:
        return max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))

    def close(self, now: bool = False) -> None:
        self.client.close()


class RayExecutor:
    name = "ray"

    def __init__(self, address: str | None):
        try:
            import ray
        except ImportError:
            raise ExecutorError("--executor ray needs Ray: pip install 'dslc[cluster]'") from None
        self.ray = ray
        try:
            if not ray.is_initialized():
                import logging
                ray.init(address=address or os.environ.get("RAY_ADDRESS") or None,
                         include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        except Exception as exc:  # noqa: BLE001
            raise ExecutorError(f"cannot start or reach Ray: {exc}") from None
        self._remote = {}

    def submit(self, fn, *args):
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self.ray.remote(fn)
        return remote.remote(*args)

    def result(self, handle, timeout=None):
        return self.ray.get(handle, timeout=timeout)

    def cancel(self, handle) -> None:
        try:
            self.ray.cancel(handle)
        except Exception:  # noqa: BLE001 - already finished
            pass

    @property
    def workers(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def close(self, now: bool = False) -> None:
        pass                 # a cluster we joined stays up; one ray.init started ends with dslc


def parse_executor(text: str | None) -> tuple[str, str | None]:
    """``--executor``: ("local", None), ("ray", address or None), ("dask", address)."""
    if text is None or text == "local":
        return "local", None
    if text == "ray" or text.startswith("ray://") or text.startswith("ray:"):
        address = None if text == "ray" else text
        return "ray", address
    if text.startswith("dask://"):
        address = "tcp://" + text[len("dask://"):]
        return "dask", address
    if text.startswith("tcp://"):
        return "dask", text
    raise ValueError(f"--executor `{text}` is not `local`, `ray`, `ray://HOST:PORT` or `dask://HOST:PORT`")


def make_executor(text: str | None, jobs: int):
    kind, address = parse_executor(text)
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "dask":
        return DaskExecutor(address)
    return RayExecutor(address)
