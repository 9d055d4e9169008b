# Written by `trainyard run --local`: records the world each Python process joins, for the world check.
# It changes nothing in the program: it wraps torch.distributed.init_process_group and
# jax.distributed.initialize to append one line (rank and world size as the library itself reports them)
# to $TRAINYARD_LOCAL_PROBE after they return.
import os as _ty_os
import sys as _ty_sys


def _ty_record(kind, rank, world):
    try:
        with open(_ty_os.environ["TRAINYARD_LOCAL_PROBE"], "a") as out:
            out.write("%s rank=%d world=%d pid=%d\n" % (kind, rank, world, _ty_os.getpid()))
    except Exception:
        pass


def _ty_wrap(module, name, kind, observe):
    original = getattr(module, name, None)
    if original is None:
        return

    def wrapped(*args, **kwargs):
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
