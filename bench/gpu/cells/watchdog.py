"""The cell harness's watchdog: the rows run in a worker process that the runner kills when it
stops making progress, so that a contender whose code never returns (a CAS loop that never
succeeds, a barrier that never completes) costs that contender, not the run.

A CUDA kernel cannot be stopped from the host thread that launched it; killing the process that
owns the context can. The worker (`run.py ... --worker`) creates the CUDA context once and runs
row after row, told by JSON lines on its stdin; it answers with JSON lines of events on its
stdout: `ready` (the device), `launch` and `launched` around every kernel launch, `check` around
every semantics check, `log`, and `row` (the row's result). The supervisor here waits for the
next event at most `--hang-after` seconds while a launch is in flight (`CPU_PATIENCE` elsewhere).
When none comes, it kills the worker's process group: a `launch` without its `launched` names the
contender that hung, which is recorded as `timeout` for that row (cell, operand pattern,
addresses) and the row runs again in a fresh worker without it, so the other contenders' times
are kept; silence anywhere else fails the row as a whole. A worker that dies during a launch is
handled the same way, the contender recorded as `crashed`. A launch that faults (an illegal
address: the CUDA context is lost and every later call of the process would fail) makes the
worker send `fault` and exit; the contender is recorded as `error` with the fault, and the row
runs again in a fresh worker. Restarting a worker costs a CUDA context (about a second), paid
only after a hang, crash or fault.
"""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

# The supervisor's process id, given to the worker so that it can tell it is orphaned.
SUPERVISOR_ENV = "ATOMIR_CELLS_SUPERVISOR"
PR_SET_PDEATHSIG = 1
# Seconds the worker may go without an event outside a launch (and to start).
CPU_PATIENCE = 60
# Seconds a killed worker may take to exit before the runner goes on without waiting.
KILL_PATIENCE = 30


def die_with_supervisor():
    """The worker is killed with its supervisor: a supervisor killed from outside (the time
    limit of the command around it) must not leave a worker spinning on the GPU. Linux's
    parent-death signal does it; where the supervisor is already gone, the worker exits."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if str(os.getppid()) != os.environ.get(SUPERVISOR_ENV):
        os._exit(3)


class Emitter:
    """The worker's side: writes events, one JSON line each, to the protocol pipe (the stdout
    it was started with; its fd 1 then points at stderr, so stray prints cannot corrupt it)."""

    def __init__(self):
        die_with_supervisor()
        protocol = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
        self.stream = os.fdopen(protocol, "w", buffering=1)
        self.lock = threading.Lock()

    def __call__(self, event, **fields):
        with self.lock:
            self.stream.write(json.dumps({"event": event} | fields) + "\n")
            self.stream.flush()


class LabelledModule:
    """A loaded module with the contender it belongs to, so that launches can be named."""

    def __init__(self, label, module):
        self.label, self.module = label, module


class LabelledKernel:
    def __init__(self, label, kernel):
        self.label, self.kernel = label, kernel


# CUDA errors after which the context is unusable (every later call fails): spellings of the
# driver and runtime APIs, lower case, without underscores.
LOST_CONTEXT = ("illegaladdress", "launchfail", "misalignedaddress", "illegalinstruction",
                "hardwarestackerror", "invalidpc", "erroraddressoutofrange", "errorassert")


def context_lost(error):
    text = f"{type(error).__name__} {error}".replace("_", "").lower()
    return any(token in text for token in LOST_CONTEXT)


class SimulatedFault(Exception):
    """What CuPy raises when a kernel faults, for `--simulate-fault`."""


class WatchedDevice:
    """A device (CudaDevice or SimulatedDevice) whose launches report to the supervisor. A launch
    that faults (the CUDA context is then lost) ends the worker after naming the contender, so
    that the row runs again in a fresh process. Simulation only: a launch matching `hangs` never
    returns, the CPU stand-in for a kernel that does not terminate; one matching `faults` faults,
    and every later launch of the process fails as on a lost context."""

    def __init__(self, inner, emit, hangs=(), faults=()):
        self.inner, self.emit, self.hangs, self.faults = inner, emit, list(hangs), list(faults)
        self.simulated = inner.simulated
        self.poisoned = False

    def info(self):
        return self.inner.info()

    def buffers(self, init, operands, olds_bytes):
        return self.inner.buffers(init, operands, olds_bytes)

    def kernel(self, module, name):
        return LabelledKernel(module.label, self.inner.kernel(module.module, name))

    def launch(self, kernel, row, threads, bufs, results):
        self.emit("launch", label=kernel.label, threads=threads)
        where = (row.case.name, kernel.label, row.addresses)
        if any(spec_matches(spec, *where) for spec in self.hangs):
            while True:
                time.sleep(3600)
        try:
            if self.poisoned or any(spec_matches(spec, *where) for spec in self.faults):
                self.poisoned = True
                raise SimulatedFault("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered")
            outcome = self.inner.launch(kernel.kernel, row, threads, bufs, results)
        except Exception as error:  # noqa: BLE001 - only a lost context ends the worker
            if context_lost(error):
                self.emit("fault", label=kernel.label, reason=f"{type(error).__name__}: {error}")
                os._exit(4)
            raise
        self.emit("launched", label=kernel.label)
        return outcome


def parse_specs(text):
    """`--simulate-hang` / `--simulate-fault` specs: `[CELL/]LABEL[@ADDRESSES]`, comma-separated."""
    specs = []
    for spec in (s for s in text.split(",") if s):
        cell, _, rest = spec.rpartition("/")
        label, _, addresses = rest.partition("@")
        specs.append((cell or None, label, int(addresses) if addresses else None))
    return specs


def spec_matches(spec, cell, label, addresses):
    want_cell, want_label, want_addresses = spec
    return (want_label == label and (want_cell is None or want_cell == cell)
            and (want_addresses is None or want_addresses == addresses))


# After a killed worker, how often a new one may fail to start (the device still releasing the
# old context: cudaErrorNoDevice) and how long to wait between tries.
START_ATTEMPTS_AFTER_A_KILL = 4
START_RETRY_PAUSE = 15


class WorkerLost(Exception):
    """The worker made no progress (or died): `label` is the contender whose launch had not
    returned (None: the worker was elsewhere), `status` is `timeout` or `crashed`."""

    def __init__(self, status, label, reason):
        super().__init__(reason)
        self.status, self.label, self.reason = status, label, reason


class OutOfBudget(Exception):
    """The run's hard time limit came while a row was running; the worker was stopped."""


class Supervisor:
    """The runner's side: starts the worker, hands it rows, kills it when it stalls."""

    def __init__(self, command, hang_after, log):
        self.command, self.hang_after, self.log = command, hang_after, log
        self.process, self.events, self.info = None, None, None
        self.restarts = 0
        # A killed worker whose CUDA context is still being torn down (behind a kernel that
        # does not return): the device takes no new context until it is gone.
        self.exiting = None

    def _start(self, deadline):
        self._wait_for_exiting(deadline)
        attempts = START_ATTEMPTS_AFTER_A_KILL if self.restarts else 1
        for attempt in range(1, attempts + 1):
            try:
                return self._start_once(deadline)
            except WorkerLost as failed:
                if attempt == attempts or time.time() + START_RETRY_PAUSE >= deadline:
                    raise SystemExit(f"run.py: the worker did not start: {failed.reason} (its error is above)"
                                     + (f"; {attempt} attempts after a killed worker" if self.restarts else "")
                                     ) from None
                self.log(f"the worker did not start ({failed.reason}); the device may still be releasing "
                         f"the killed worker's context: trying again in {START_RETRY_PAUSE} s")
                time.sleep(START_RETRY_PAUSE)

    def _wait_for_exiting(self, deadline):
        if self.exiting is None:
            return
        self.log(f"waiting for worker process {self.exiting.pid} to exit before starting another")
        try:
            self.exiting.wait(timeout=max(deadline - time.time(), 0))
        except subprocess.TimeoutExpired:
            raise SystemExit(f"run.py: worker process {self.exiting.pid}, killed after a hang, did not exit "
                             "before the time limit: the device is not free for another") from None
        self.exiting = None

    def _start_once(self, deadline):
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1, start_new_session=True,
                                        env=dict(os.environ, **{SUPERVISOR_ENV: str(os.getpid())}))
        self.log(f"worker process {self.process.pid} started")
        self.events = queue.Queue()
        threading.Thread(target=_pump, args=(self.process.stdout, self.events), daemon=True).start()
        # Starting takes a CUDA context and CuPy's import: more than a launch may.
        event = self._next(deadline, None, patience=max(self.hang_after, CPU_PATIENCE))
        if event.get("event") != "ready":
            self.stop()
            raise SystemExit(f"run.py: the worker did not start: {event}")
        self.info = event["info"]

    def ensure_started(self, deadline):
        if self.process is not None and self.process.poll() is not None:
            self.log(f"worker process {self.process.pid} exited between rows (status {self.process.returncode})")
            self.process = None
        if self.process is None:
            self._start(deadline)
        return self.info

    def run_row(self, task, deadline, on_log):
        """The worker's result of one row, or WorkerLost / OutOfBudget (the worker then stopped)."""
        self.ensure_started(deadline)
        self.process.stdin.write(json.dumps(task) + "\n")
        self.process.stdin.flush()
        in_flight = None
        while True:
            # Outside a launch the worker is on the CPU (a check of 2^20 elements, the operands):
            # slow at worst, never stuck on the GPU, so it gets more time.
            event = self._next(deadline, in_flight, patience=None if in_flight else max(self.hang_after, CPU_PATIENCE))
            kind = event["event"]
            if kind == "launch":
                in_flight = (event["label"], event["threads"])
            elif kind == "launched":
                in_flight = None
            elif kind == "log":
                on_log(event["text"])
            elif kind == "fault":
                self.stop()
                raise WorkerLost("error", event["label"], f"{event['reason']} (the CUDA context was lost: the row ran "
                                 "again in a fresh process without this contender)")
            elif kind == "row":
                return event

    def _next(self, deadline, in_flight, patience=None):
        patience = self.hang_after if patience is None else patience
        wait = min(patience, deadline - time.time())
        try:
            line = self.events.get(timeout=max(wait, 0))
        except queue.Empty:
            self.stop()
            if wait < patience:
                raise OutOfBudget() from None
            label = in_flight[0] if in_flight else None
            where = (f"a launch of {in_flight[1]} threads did not return within {patience:g} s"
                     if in_flight else f"no progress for {patience:g} s outside any launch")
            raise WorkerLost("timeout", label, f"{where}; its process was killed") from None
        if line is None:
            code = self.process.wait()
            self.process = None
            label = in_flight[0] if in_flight else None
            where = "during its launch" if in_flight else "outside any launch"
            raise WorkerLost("crashed", label, f"the worker process exited (status {code}) {where}")
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            self.stop()
            raise WorkerLost("crashed", None, f"the worker wrote something unreadable: {line[:200]!r}") from None

    def stop(self):
        """Kills the worker and everything it started (its own process group)."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            # The driver tears the context down (and stops a spinning kernel) before the
            # process is gone; that must not hold the runner forever either.
            self.process.wait(timeout=KILL_PATIENCE)
        except subprocess.TimeoutExpired:
            self.log(f"worker process {self.process.pid} still exiting after {KILL_PATIENCE} s; going on")
            self.exiting = self.process
        self.process = None
        self.restarts += 1

    def close(self):
        """Ends a worker that is idle: it exits when its stdin closes."""
        if self.process is None:
            return
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.stop()
        self.process = None


def _pump(stream, events):
    for line in stream:
        events.put(line)
    events.put(None)
