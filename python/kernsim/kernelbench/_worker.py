"""`python -m kernsim.kernelbench._worker REQUEST.json RESULT.json`: one evaluation in this
(child) process; the parent sets the limits and reads RESULT.json (see __init__.evaluate)."""

import json
import resource
import sys


def main() -> None:
    req_path, res_path = sys.argv[1], sys.argv[2]  # a task command run here may replace sys.argv
    req = json.loads(open(req_path).read())
    mem = req.get("memory_limit_gb")
    if mem:
        b = int(float(mem) * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (b, b))
    from .evaluate import run
    try:
        if req.get("kind") == "gpumode":
            from .adapters import run_gpumode
            res = run_gpumode(req)
        elif req.get("kind") == "arena_cmd":
            from .adapters import run_arena_command
            res = run_arena_command(req)
        else:
            res = run(req)
    except MemoryError:
        res = {"compiled": None, "correct": False, "error": f"the evaluation ran out of its {mem} GB memory limit"}
    except BaseException as e:  # noqa: BLE001 - reported, the parent never crashes
        import traceback
        res = {"compiled": None, "correct": False,
               "error": f"evaluator: {type(e).__name__}: {e}\n" + traceback.format_exc(limit=6)}
    with open(res_path + ".tmp", "w") as f:
        json.dump(res, f, default=str)
    import os
    os.replace(res_path + ".tmp", res_path)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: a candidate's static destructors cannot change the result


if __name__ == "__main__":
    main()
