#!/usr/bin/env python3
"""Bookkeeping for tools/mutate.sh: draws the mutant sample, says which
mutants are already evaluated, and writes the markdown report.

A mutant's id is "path:line:hash": hash is a digest of the path, the lines
the mutant removes and adds and the line on either side, so it survives edits
elsewhere in the file; the line number is only for people (equivalents are
matched on path and hash).
"""
import argparse
import collections
import hashlib
import os
import random
import re
import sys

FINAL = ("killed", "survived")


def mutant_files(mutants_root, sources):
    """(source path, mutant file) for every mutant of `sources` under the
    root, in a stable order (source, then universalmutator's mutant number)."""
    found = []
    for src in sources:
        dirpath = os.path.join(mutants_root, src)
        for name in os.listdir(dirpath):
            m = re.match(r"^(.*)\.mutant\.(\d+)(\.[^.]+)$", name)
            if m:
                found.append((src, int(m.group(2)), os.path.join(dirpath, name)))
    found.sort()
    return [(src, path) for src, _, path in found]


class Change:
    """What a mutant changes: the lines removed and added at `line` (1-based),
    with the unchanged line before and after as context. universalmutator's
    rules replace one line or insert one."""

    def __init__(self, original, mutant):
        n = min(len(original), len(mutant))
        i = next((k for k in range(n) if original[k] != mutant[k]), n)
        # Common tail, never reaching back past i in either file.
        k = 0
        while (k < len(original) - i and k < len(mutant) - i
               and original[len(original) - 1 - k] == mutant[len(mutant) - 1 - k]):
            k += 1
        self.line = i + 1
        self.removed = original[i:len(original) - k]
        self.added = mutant[i:len(mutant) - k]
        self.before = original[i - 1] if i > 0 else ""
        self.after = original[len(original) - k] if k > 0 else ""

    def empty(self):
        return not self.removed and not self.added

    def diff(self, src):
        out = [f"--- {src}:{self.line}"]
        if self.before:
            out.append(" " + self.before)
        out += ["-" + x for x in self.removed] + ["+" + x for x in self.added]
        if self.after:
            out.append(" " + self.after)
        return "\n".join(out)


def mutant_id(src, change):
    """path:line:hash; the hash covers the change and its context lines (not
    the line number), so it survives edits elsewhere in the file and tells
    apart the same edit at two places."""
    text = "\n".join([change.before.strip()] + ["-" + x.strip() for x in change.removed] +
                     ["+" + x.strip() for x in change.added] + [change.after.strip()])
    digest = hashlib.sha1(f"{src}\0{text}".encode()).hexdigest()[:8]
    return f"{src}:{change.line}:{digest}"


def id_key(mid):
    """What identifies a mutant across edits: path and hash, not the line."""
    path, _, digest = mid.rsplit(":", 2)
    return path, digest


def cmd_sample(args):
    originals = {}
    seen = set()
    pool = []
    with open(args.sources, encoding="utf-8") as f:
        sources = [line.strip() for line in f if line.strip()]
    for src, path in mutant_files(args.mutants, sources):
        if src not in originals:
            with open(os.path.join(args.scratch, src), encoding="utf-8", errors="surrogateescape") as f:
                originals[src] = f.read().splitlines()
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            mutated = f.read().splitlines()
        change = Change(originals[src], mutated)
        if change.empty():
            continue
        mid = mutant_id(src, change)
        if mid in seen:  # the same edit reached by two rules
            continue
        seen.add(mid)
        pool.append((mid, src, path, change))
    if args.only_ids:
        # Exactly these mutants (by path and hash), wherever their line is now.
        with open(args.only_ids, encoding="utf-8") as f:
            wanted = [id_key(line.strip()) for line in f if line.strip()]
        by_key = {id_key(m[0]): m for m in pool}
        sample = [by_key[k] for k in wanted if k in by_key]
        for k in wanted:
            if k not in by_key:
                print(f"mutant {k[0]}:{k[1]} no longer exists (its line changed)", file=sys.stderr)
    else:
        sample = random.Random(args.seed).sample(pool, min(args.count, len(pool)))
    os.makedirs(args.diffs, exist_ok=True)
    for mid, src, path, change in sample:
        with open(os.path.join(args.diffs, safe_name(mid)), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(change.diff(src) + "\n")
        print(f"{mid}\t{src}\t{path}")
    print(f"{len(pool)} distinct mutants in {len(originals)} files", file=sys.stderr)


def safe_name(mid):
    return re.sub(r"[^A-Za-z0-9._-]", "_", mid) + ".diff"


def read_results(path):
    """Last result per mutant (path and hash: a later row may carry a moved
    line number), keyed by its latest id, in first-seen order."""
    last = collections.OrderedDict()
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for row in f:
            fields = row.rstrip("\n").split("\t")
            if len(fields) != len(header):
                continue  # a line cut short by an interrupted run
            last[id_key(fields[0])] = dict(zip(header, fields))
    return collections.OrderedDict((r["id"], r) for r in last.values())


def total_seconds(path):
    """Seconds spent on every row, superseded ones included (the run's cost)."""
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8") as f:
        f.readline()
        return sum(int(row.split("\t")[4] or 0) for row in f if row.count("\t") == 5)


def read_equivalents(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, row in enumerate(f, 1):
            row = row.strip()
            if not row or row.startswith("#"):
                continue
            mid, _, reason = row.partition(" ")
            if mid.count(":") < 2 or not reason.strip():
                sys.exit(f"{path}:{n}: expected '<path:line:hash> <reason>', got: {row}")
            out[id_key(mid)] = (mid, reason.strip())
    return out


def cmd_done(args):
    """The mutants already decided, as path:hash (what the sample is matched on)."""
    for mid, r in read_results(args.results).items():
        if r["status"] == "killed" or (r["status"] == "survived" and not args.rerun_survivors):
            print(":".join(id_key(mid)))


def cmd_report(args):
    results = read_results(args.results)
    equivalents = read_equivalents(args.equivalents)
    counts = collections.Counter()
    per_file = collections.defaultdict(collections.Counter)
    kinds = collections.Counter()
    survivors, equivalent, errors, killed_but_listed = [], [], [], []
    seconds = 0
    seconds = total_seconds(args.results)
    for mid, r in results.items():
        status = r["status"]
        eq = equivalents.get(id_key(mid))
        if status == "survived" and eq:
            status = "equivalent"
            equivalent.append((mid, eq[1]))
        elif status == "survived":
            survivors.append(mid)
        elif status == "killed":
            kinds[r["detail"].split(":")[0]] += 1
            if eq:
                killed_but_listed.append(mid)
        else:
            errors.append((mid, r["detail"]))
        counts[status] += 1
        per_file[r["source"]][status] += 1
    evaluated = counts["killed"] + counts["survived"] + counts["equivalent"]
    denominator = evaluated - counts["equivalent"]
    score = 100.0 * counts["killed"] / denominator if denominator else 0.0
    # The same among mutants that compile: what the tests themselves caught.
    by_tests = counts["killed"] - kinds["build failed"]
    compiling = denominator - kinds["build failed"]
    test_score = 100.0 * by_tests / compiling if compiling else 0.0
    lines = [
        "# Mutation run",
        "",
        f"Written by `tools/mutate.sh` from `{os.path.basename(args.results)}`: sample of "
        f"{args.count} drawn with seed {args.seed}; {evaluated} evaluated so far.",
        "",
        "| killed | survived | equivalent | errors (retried on resume) | score killed / (total − equivalent) |",
        "|---|---|---|---|---|",
        f"| {counts['killed']} | {counts['survived']} | {counts['equivalent']} | {counts['error']} | "
        f"{score:.1f}% ({counts['killed']}/{denominator}) |",
        "",
        f"Among mutants that compile, the tests killed {test_score:.1f}% ({by_tests}/{compiling}).",
        "",
        f"Killed by: {', '.join(f'{k} {v}' for k, v in sorted(kinds.items())) or 'nothing yet'}. "
        f"Time spent on mutants, reruns included: {seconds} s.",
        "",
        "## Per file",
        "",
        "| file | killed | survived | equivalent |",
        "|---|---|---|---|",
    ]
    for src in sorted(per_file):
        c = per_file[src]
        lines.append(f"| `{src}` | {c['killed']} | {c['survived']} | {c['equivalent']} |")
    lines += ["", "## Surviving mutants", ""]
    if not survivors:
        lines.append("None.")
    for mid in survivors:
        lines += [f"`{mid}` ({results[mid]['detail']})", "", "```diff", read_diff(args.diffs, mid), "```", ""]
    lines += ["", "## Equivalent mutants (tools/mutation_equivalents.txt)", ""]
    if not equivalent:
        lines.append("None.")
    for mid, reason in equivalent:
        lines += [f"`{mid}`: {reason}", "", "```diff", read_diff(args.diffs, mid), "```", ""]
    if killed_but_listed:
        lines += ["", "## Listed as equivalent but killed (remove them from the list)", ""]
        lines += [f"- `{mid}`" for mid in killed_but_listed]
    if errors:
        lines += ["", "## Errors (evaluated again by the next run)", ""]
        lines += [f"- `{mid}`: {detail}" for mid, detail in errors]
    with open(args.report, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def read_diff(diffs, mid):
    path = os.path.join(diffs, safe_name(mid))
    if not os.path.exists(path):
        return f"(diff not available: {path})"
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().rstrip("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sample")
    p.add_argument("--mutants", required=True)
    p.add_argument("--sources", required=True)
    p.add_argument("--scratch", required=True)
    p.add_argument("--seed", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--diffs", required=True)
    p.add_argument("--only-ids", help="file of mutant ids to take instead of a random sample")
    p.set_defaults(fn=cmd_sample)
    p = sub.add_parser("done")
    p.add_argument("--results", required=True)
    p.add_argument("--rerun-survivors", type=int, default=0)
    p.set_defaults(fn=cmd_done)
    p = sub.add_parser("report")
    for flag in ("--results", "--equivalents", "--diffs", "--report", "--seed"):
        p.add_argument(flag, required=True)
    p.add_argument("--count", type=int, required=True)
    p.set_defaults(fn=cmd_report)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
