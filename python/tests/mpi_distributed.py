"""clforge.distributed under mpirun (tests/python.cmake runs this file on 3
ranks through tests/mpirun.sh; each rank runs the same tests in the same
order, as collectives need). Every rank makes every rank's input from the
same seeds and checks its own result bit for bit against numpy adding the
ranks' values in rank order in f32, a mean divided last."""
import os
import tempfile
import zlib

_tmp = tempfile.mkdtemp(prefix="clforge-pytest-")
os.environ["CLFORGE_TUNING_FILE"] = os.path.join(_tmp, "tuning.json")
os.environ["CLFORGE_SYSTEM_TUNING_FILE"] = os.path.join(_tmp, "system-tuning.json")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

mpi4py = pytest.importorskip("mpi4py")
from mpi4py import MPI  # noqa: E402  (initializes MPI with MPI_THREAD_MULTIPLE)

import clforge  # noqa: E402
import clforge.distributed as dist  # noqa: E402

if not dist.mpi_library():
    pytest.skip("libclforge was built without MPI", allow_module_level=True)

RANK, SIZE = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), clforge.bfloat16]


@pytest.fixture(scope="module")
def comm():
    c = dist.Communicator(timeout_ms=20000, chunk_bytes=4096)
    yield c
    c.close()


def inputs(shape, dtype, seed):
    return [np.random.default_rng(seed * 1000 + r).standard_normal(shape).astype(np.float32).astype(dtype)
            for r in range(SIZE)]


def in_order(xs, op):
    """The defined order: rank 0's value, then each later rank's, in f32."""
    s = xs[0].astype(np.float32)
    for x in xs[1:]:
        x = x.astype(np.float32)
        s = s + x if op in ("sum", "mean") else np.maximum(s, x) if op == "max" else np.minimum(s, x)
    if op == "mean":
        s = s / np.float32(SIZE)
    return s.astype(xs[0].dtype)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("shape", [(1,), (3001,), (17, 33)])
def test_all_reduce(comm, dtype, op, shape):
    xs = inputs(shape, dtype, zlib.crc32(repr((op, shape)).encode()) % 997)  # hash() differs per process
    got = comm.all_reduce(xs[RANK], op)
    assert same_bits(got, in_order(xs, op)), "rank %d: %s %s %s" % (RANK, op, dtype, shape)


def test_all_reduce_in_place(comm):
    xs = inputs((1000,), np.float32, 5)
    x = xs[RANK].copy()
    r = comm.all_reduce(x, "sum", out=x)
    assert r is x and same_bits(x, in_order(xs, "sum"))


def test_broadcast_gather_scatter(comm):
    xs = inputs((6 * SIZE, 5), np.float16, 9)
    assert same_bits(comm.broadcast(xs[RANK], src=SIZE - 1), xs[SIZE - 1])
    assert same_bits(comm.all_gather(xs[RANK]), np.concatenate(xs))
    block = xs[0].shape[0] // SIZE
    want = in_order(xs, "mean")[RANK * block:(RANK + 1) * block]
    assert same_bits(comm.reduce_scatter(xs[RANK], "mean"), want)
    comm.barrier()
    assert comm.status() is None


def test_bad_input(comm):
    with pytest.raises(ValueError, match="op is sum"):
        comm.all_reduce(np.ones(3, np.float32), "prod")
    with pytest.raises(ValueError, match="must divide"):
        comm.reduce_scatter(np.ones((SIZE + 1,), np.float32))
    with pytest.raises(TypeError):
        comm.all_reduce(np.ones(3, np.float64))
    # the refused calls did not count: the ranks still agree
    assert same_bits(comm.all_reduce(np.full(4, 2.0, np.float32)), np.full(4, 2.0 * SIZE, np.float32))


def test_rank_context(comm):
    assert comm.rank == RANK and comm.size == SIZE
    assert comm.ctx.device.get("name")
    assert dist.mpi_library().split()[:2] == MPI.Get_library_version().split()[:2]


def test_out_dtype_and_close():
    c = dist.Communicator(timeout_ms=20000)
    with pytest.raises(TypeError, match="out is float32"):
        c.all_reduce(np.ones(4, np.float16), out=np.empty(4, np.float32))
    ctx = c.ctx
    assert same_bits(c.all_reduce(np.ones(3, np.float32)), np.full(3, SIZE, np.float32))
    c.close()
    with pytest.raises(ValueError, match="closed"):
        ctx.handle  # the rank's own context went with it


def test_tune_crossover(comm):
    """clforge_comm_tune: every rank the same crossover, taken by the
    communicator; rank 0 saves it where a new communicator finds it."""
    path = os.environ["CLFORGE_TUNING_FILE"]  # each rank's own; rank 0's is written
    r = comm.tune(path)
    c = r["crossover_bytes"]
    assert 1024 <= c <= 8 << 20 and c & (c - 1) == 0 and len(r["sizes"]) == 13
    assert MPI.COMM_WORLD.allgather(c) == [c] * SIZE
    assert comm.allreduce_algo(c) == ("owner", c, "clforge_comm_tune")
    assert comm.allreduce_algo(c - 1)[0] == "gather"
    assert os.path.exists(path) == (RANK == 0)
    fresh = dist.Communicator(timeout_ms=20000)
    algo, cross, source = fresh.allreduce_algo(c)
    assert (algo, cross) == ("owner", c)
    assert source == "tuned" if RANK == 0 else source in ("rank 0's", "built-in")
    xs = inputs((c // 4 + 3,), np.float32, 9)
    assert same_bits(fresh.all_reduce(xs[RANK]), in_order(xs, "sum"))
    fresh.close()
