"""Writes user-profile.json: a small Caliper json-split profile (cali-query's layout, as
tests/data/hatchet/caliper-lulesh-json has it) of 3 MPI ranks holding what a user's own
data has and the bundled profiles lack (see README.md). Run from this folder."""

import json

# region tree: main -> solve -> kernel, <b>x</b>; main -> "" (empty), "  " (blank), idle;
# a second root init
LABELS = ["main", "solve", "kernel", "<b>x</b>", "", "  ", "idle", "init"]
PARENTS = [None, 0, 1, 1, 0, 0, 0, None]
# exclusive seconds (sum#time.duration) per rank; a missing node is a record not written,
# None is a null value (NaN)
TIME = {
    0: {0: 1.0, 1: 0.5, 2: 3.0, 3: 0.00002, 4: 0.1, 5: 0.2, 6: 0.0, 7: 0.00001},
    1: {0: 1.0, 1: 0.5, 2: None, 3: 0.00004, 4: 0.1, 5: 0.2, 6: 0.0, 7: 0.00001},
    2: {0: 1.0, 1: 0.5, 4: 0.1, 6: 0.0},
}


def main() -> None:
    nodes = []
    for label, parent in zip(LABELS, PARENTS):
        node = {"column": "path", "label": label}
        if parent is not None:
            node["parent"] = parent
        nodes.append(node)
    data = [[r, t, 0, node] for r, times in TIME.items() for node, t in times.items()]
    profile = {
        "data": data,
        "columns": ["mpi.rank", "sum#time.duration", "sum#zero.count", "path"],
        "column_metadata": [
            {"is_value": True},
            {"is_value": True},
            {"is_value": True},
            {"is_value": False},
        ],
        "nodes": nodes,
    }
    with open("user-profile.json", "w", encoding="utf-8") as f:
        json.dump(profile, f)
        f.write("\n")


if __name__ == "__main__":
    main()
