# Written by `trainyard run --local`: records the world each Python process joins, for the world check.
# It wraps torch.distributed.init_process_group and jax.distributed.initialize to append one line (rank
# and world size as the library itself reports them) to $TRAINYARD_LOCAL_PROBE after they return.
# One stand-in, for JAX only: in a pod, a bare jax.distributed.initialize() learns the process count and
# id from JAX's Kubernetes detector (jax/_src/clusters/k8s_cluster.py: the Job's parallelism and
# JOB_COMPLETION_INDEX), which has no cluster to ask here; when the program leaves them unset, they come
# from JAX_NUM_PROCESSES and JAX_PROCESS_ID, which the compiled pods carry with the same values.
import os as _ty_os
import sys as _ty_sys


def _ty_record(kind, rank, world):
    try:
        with open(_ty_os.environ["TRAINYARD_LOCAL_PROBE"], "a") as out:
            out.write("%s rank=%d world=%d pid=%d\n" % (kind, rank, world, _ty_os.getpid()))
    except Exception:
        pass


def _ty_jax_defaults(args, kwargs):
    # initialize(coordinator_address=None, num_processes=None, process_id=None, ...)
    for index, key, env in ((1, "num_processes", "JAX_NUM_PROCESSES"), (2, "process_id", "JAX_PROCESS_ID")):
        given = args[index] if len(args) > index else kwargs.get(key)
        value = _ty_os.environ.get(env, "")
        if given is None and len(args) <= index and value.isdigit():
            kwargs[key] = int(value)
    return args, kwargs


def _ty_wrap(module, name, kind, observe):
    original = getattr(module, name, None)
    if original is None:
        return

    def wrapped(*args, **kwargs):
        if kind == "jax":
            args, kwargs = _ty_jax_defaults(args, dict(kwargs))
        result = original(*args, **kwargs)
        try:
            rank, world = observe(module)
            _ty_record(kind, rank, world)
        except Exception:
            pass
        return result

    setattr(module, name, wrapped)


def _ty_install():
    import importlib.abc
    import importlib.util

    targets = {
        "torch.distributed": ("init_process_group", "torch", lambda m: (m.get_rank(), m.get_world_size())),
        "jax.distributed": ("initialize", "jax", lambda m: (__import__("jax").process_index(), __import__("jax").process_count())),
    }

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname not in targets:
                return None
            _ty_sys.meta_path.remove(self)
            try:
                spec = importlib.util.find_spec(fullname)
            finally:
                _ty_sys.meta_path.insert(0, self)
            if spec is None or spec.loader is None:
                return spec
            loader = spec.loader
            run = loader.exec_module
            name, kind, observe = targets[fullname]

            def exec_module(module):
                run(module)
                _ty_wrap(module, name, kind, observe)

            loader.exec_module = exec_module
            return spec

    _ty_sys.meta_path.insert(0, Finder())


if _ty_os.environ.get("TRAINYARD_LOCAL_PROBE"):
    _ty_install()
