"""Write ``sampling-profile.cali`` and ``sampling-unresolved.cali``: small Caliper sampling
profiles of one process.

Synthetic, written for perfweave's tests (run ``python make_sampling_cali.py`` here to
rebuild it; the output is deterministic). Its record layout follows a Caliper sampling
profile such as Hatchet's test file ``amg-sample.cali``: a nested ``region`` attribute
(the path), the sampled function and module (``source.function#cali.sampler.pc``,
``module#cali.sampler.pc``), the unwound call stack (``source.function#callpath.address``,
not nested) and the metrics ``count``, ``scount#0.001000`` and ``scount`` (alias
``time``, seconds). Several records land on one call-tree node (the same region and
sampled function reached through different stacks or modules), and some records have no
region at all (a helper thread's samples). ``sampling-unresolved.cali`` adds samples whose
function the sampler could not name (an empty ``source.function#cali.sampler.pc``, as for a
stripped library): three call-tree nodes without a name.
"""

from __future__ import annotations

from pathlib import Path

HEADER = """\
__rec=node,id=12,attr=10,data=64,parent=3
__rec=node,id=13,attr=8,data=attribute.alias,parent=12
__rec=node,id=14,attr=8,data=attribute.unit,parent=12
__rec=node,id=48,attr=10,data=84,parent=3
__rec=node,id=50,attr=8,data=source.function#callpath.address,parent=48
__rec=node,id=92,attr=8,data=source.function#cali.sampler.pc,parent=48
__rec=node,id=93,attr=8,data=module#cali.sampler.pc,parent=48
__rec=node,id=110,attr=10,data=1,parent=2
__rec=node,id=111,attr=8,data=count,parent=110
__rec=node,id=112,attr=10,data=129,parent=2
__rec=node,id=113,attr=8,data=scount#0.001000,parent=112
__rec=node,id=120,attr=14,data=sec,parent=5
__rec=node,id=121,attr=13,data=time,parent=120
__rec=node,id=122,attr=10,data=1,parent=121
__rec=node,id=123,attr=8,data=scount,parent=122
__rec=node,id=254,attr=10,data=276,parent=3
__rec=node,id=255,attr=8,data=region,parent=254
"""
MODULE, FUNCTION, STACK, REGION = 93, 92, 50, 255
METRICS = "111=113=123"

START = ["_start", "__libc_start_main", "main"]
# (region path, sampled function, module, call stack below _start/main, samples)
SAMPLES = [
    (["main", "solve", "relax"], "relax_kernel", "libamg.so", ["solve", "relax"], 40),
    (["main", "solve", "relax"], "relax_kernel", "libamg.so", ["solve", "cycle", "relax"], 25),
    (["main", "solve", "relax"], "relax_kernel", "libamg.so", ["solve", "cycle", "cycle"], 7),
    (["main", "solve", "relax"], "__memset", "libc.so.6", ["solve", "relax", "clear"], 5),
    (["main", "solve", "relax"], "__memset", "libc.so.6", ["solve", "cycle", "clear"], 3),
    (["main", "solve"], "MPI_Allreduce", "libmpi.so.40", ["solve", "norm"], 12),
    (["main", "solve"], "MPI_Allreduce", "libmpi.so.40", ["solve", "cycle", "norm"], 6),
    (["main", "solve"], "poll", "libc.so.6", ["solve", "progress"], 2),
    (["main", "setup"], "setup_matrix", "libamg.so", ["setup"], 15),
    (["main", "setup"], "setup_matrix", "libamg.so", ["setup", "coarsen"], 4),
    (["main", "setup"], "malloc", "libc.so.6", ["setup", "allocate"], 3),
    (["main"], "main", "amg", [], 2),
    (["main"], "MPI_Init", "libmpi.so.40", ["init"], 1),
    ([], "pthread_cond_timedwait", "libpthread.so.0", ["worker", "wait"], 30),
    ([], "pthread_cond_timedwait", "libpthread.so.0", ["worker", "idle", "wait"], 9),
    ([], "__poll", "libc.so.6", ["progress_thread"], 4),
]


# samples in stripped libraries: the sampler names the module but not the function
UNRESOLVED = [
    (["main", "solve", "relax"], "", "libcuda.so.1", ["solve", "relax", "launch"], 11),
    (["main", "setup"], "", "libcuda.so.1", ["setup", "upload"], 6),
    ([], "", "libgomp.so.1", ["worker", "spin"], 5),
]


def records(samples: list = SAMPLES) -> list[str]:
    lines: list[str] = []
    ids: dict[tuple[int | None, int, str], int] = {}

    def node(attr: int, data: str, parent: int | None) -> int:
        key = (parent, attr, data)
        if key not in ids:
            ids[key] = 300 + len(ids)
            up = "" if parent is None else f",parent={parent}"
            lines.append(f"__rec=node,id={ids[key]},attr={attr},data={data}{up}")
        return ids[key]

    for regions, function, module, stack, count in samples:
        me = node(MODULE, module, None)
        me = node(FUNCTION, function, me)
        for frame in [*START, *stack]:
            me = node(STACK, frame, me)
        for region in regions:
            me = node(REGION, region, me)
        lines.append(f"__rec=ctx,ref={me},attr={METRICS},data={count}={count}={count / 1000}")
    return lines


if __name__ == "__main__":
    for name, samples in (
        ("sampling-profile.cali", SAMPLES),
        ("sampling-unresolved.cali", SAMPLES + UNRESOLVED),
    ):
        out = Path(__file__).with_name(name)
        out.write_text(HEADER + "\n".join(records(samples)) + "\n")
        print(f"wrote {out}")
