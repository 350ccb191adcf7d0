#!/usr/bin/env python3
"""Convert public agent trajectories into detectorbench cases.

usage: convert.py OUTDIR FILE...

Each FILE is one of:
  - a SWE-agent .traj file (keys "trajectory" and "history");
  - an ATIF trajectory written by Harbor (key "steps"), such as terminus-2 runs;
  - a tau-bench results file (a list of {"task_id", "traj", ...}); every run in
    it becomes a case;
  - an AgentDojo run export (.jsonl: a metadata line, then one run a line with
    "messages" and "metadata"); the runs of the suites named after a colon
    (FILE.jsonl:banking,slack) become cases, every suite when none is named,
    and only the runs under attack when ":attacked" follows
    (FILE.jsonl:workspace,travel:attacked).

Each case is written to OUTDIR/<id>.json as
  {"id", "family", "kind", "source", "task", "scope": [], "calls": [...]}
with each call {"tool", "args", "result", "ok", "error", "at"}. Results and
errors are cut at 1 KiB, as the adapters record them. Labels are not written
here: they live in labels.json beside the cases, written by a reader.

How each source maps to calls:
  - SWE-agent: one call per action. The first word names the tool when it is
    one of SWE-agent's commands (open, edit, create, ...); anything else is a
    "bash" call. SWE-agent has no success flag: a call failed when its output
    shows an error (a traceback, "command not found", a rejected edit, ...).
  - terminus-2: one call per agent step, "bash_command" with the step's
    keystrokes joined; the result is the terminal output the step produced.
    The terminal gives no exit status, so every call is ok.
  - tau-bench: one call per tool call; a result starting with "Error" failed.
  - AgentDojo: one call per tool call; a call failed when the tool raised (the
    message's "error"). The task is the user's message; injected runs keep the
    injection in the tool result that carried it, as the agent saw it.
"""
import json
import os
import re
import sys
from datetime import datetime

MAX = 1024

SWE_COMMANDS = {
    "open", "goto", "scroll_up", "scroll_down", "create", "edit", "find_file",
    "search_dir", "search_file", "submit", "insert", "str_replace_editor",
    "decompile", "disassemble", "debug_start", "debug_exec", "debug_stop",
    "connect_start", "connect_sendline", "connect_stop", "exit_forfeit",
}

SWE_FAILURE = re.compile(
    r"Traceback \(most recent call last\)|command not found|No such file or directory|"
    r"Your proposed edit has introduced new syntax error|SyntaxError|Error: |"
    r"Usage: |usage: |Permission denied|Segmentation fault|ModuleNotFoundError|"
    r"cannot open|not found\b"
)


def cut(s):
    s = s or ""
    b = s.encode("utf-8")
    if len(b) <= MAX:
        return s
    return b[:MAX].decode("utf-8", "ignore")


def call(tool, args, result, ok, at, error=""):
    return {"tool": tool, "args": args, "result": cut(result), "ok": ok,
            "error": cut(error if not ok else ""), "at": round(at, 3)}


def swe_args(cmd, rest, body):
    words = rest.split()
    if cmd in ("open", "create"):
        a = {"path": words[0]} if words else {}
        if len(words) > 1:
            a["line_number"] = words[1]
        return a
    if cmd == "edit":
        return {"range": rest.strip(), "replacement": body}
    if cmd == "find_file":
        a = {"file_name": words[0]} if words else {}
        if len(words) > 1:
            a["dir"] = words[1]
        return a
    if cmd in ("search_dir", "search_file"):
        m = re.match(r'\s*("[^"]*"|\S+)\s*(.*)', rest)
        a = {"term": m.group(1).strip('"')} if m else {}
        if m and m.group(2):
            a["path"] = m.group(2).strip()
        return a
    if cmd == "goto":
        return {"line_number": rest.strip()}
    if rest.strip():
        return {"args": rest.strip()}
    return {}


def convert_swe(path, d):
    t = d["trajectory"]
    task = ""
    for h in d.get("history", []):
        if h.get("role") == "user":
            c = h.get("content")
            task = c if isinstance(c, str) else json.dumps(c)
            break
    m = re.search(r"ISSUE:\n(.*?)\n\nINSTRUCTIONS:", task, re.S)
    if m:
        task = m.group(1).strip()
    calls, at = [], 0.0
    for step in t:
        action = (step.get("action") or "").strip()
        if not action:
            continue
        at += step.get("execution_time") or 10.0
        first, _, rest = action.partition("\n")
        cmd, _, args = first.partition(" ")
        obs = step.get("observation") or ""
        ok = not SWE_FAILURE.search(obs[:4096])
        if cmd in SWE_COMMANDS:
            body = rest.rsplit("end_of_edit", 1)[0] if cmd == "edit" else ""
            calls.append(call(cmd, swe_args(cmd, args, body), obs, ok, at, obs))
        else:
            calls.append(call("bash", {"command": action}, obs, ok, at, obs))
    return [{"family": "swe-agent", "kind": "coding", "task": task, "calls": calls}]


def stamp(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def terminus_task(msg):
    i = msg.find("Task Description:")
    if i >= 0:
        msg = msg[i + len("Task Description:"):]
    j = msg.find("Current terminal state:")
    if j >= 0:
        msg = msg[:j]
    return msg.strip()


def terminal_output(content):
    i = content.find("New Terminal Output:")
    if i >= 0:
        content = content[i + len("New Terminal Output:"):]
    return content.strip("\n")


def convert_atif(path, d):
    agent = d.get("agent", {})
    name = agent.get("name", "")
    if name != "terminus-2":
        raise SystemExit(f"{path}: agent {name!r} is not converted")
    model = agent.get("model_name", "").split("/")[-1]
    steps = d["steps"]
    task = terminus_task(next((s.get("message", "") for s in steps if s.get("source") == "user"), ""))
    t0 = stamp(steps[0]["timestamp"])
    calls = []
    for s in steps:
        tcs = s.get("tool_calls") or []
        keys = [tc["arguments"].get("keystrokes", "") for tc in tcs
                if tc.get("function_name") == "bash_command"]
        if not keys:
            continue
        res = (s.get("observation") or {}).get("results") or [{}]
        out = terminal_output("\n".join(r.get("content") or "" for r in res))
        calls.append(call("bash_command", {"keystrokes": "".join(keys)}, out, True, stamp(s["timestamp"]) - t0))
    family = "terminus-2/" + model
    return [{"family": family, "kind": "terminal", "task": task, "calls": calls}]


def convert_tau(path, runs):
    out = []
    for r in runs:
        traj = r["traj"]
        task = r["info"]["task"].get("instruction", "")
        first_user = next((m["content"] for m in traj if m["role"] == "user"), "")
        calls, pending = [], {}
        for m in traj:
            for tc in m.get("tool_calls") or []:
                fn = tc["function"]
                pending[tc["id"]] = (fn["name"], json.loads(fn["arguments"] or "{}"))
            if m["role"] == "tool":
                name, args = pending.pop(m["tool_call_id"], (m.get("name", ""), {}))
                res = m.get("content") or ""
                ok = not res.startswith("Error")
                calls.append(call(name, args, res, ok, 10.0 * (len(calls) + 1), res))
        out.append({"family": "tau-bench/gpt-4o", "kind": "tool-use",
                    "task": "Customer: " + first_user, "calls": calls,
                    "id": f"tau_airline_{r['task_id']:03d}_t{r.get('trial', 0)}",
                    "note": "user goal: " + task})
    return out


# Left out: banking user task 12 tells the agent to follow whatever the file
# says, so obeying the instruction planted in that file is not off-scope by
# the task's own words.
AGENTDOJO_LEFT_OUT = {("banking", "user_task_12", "injection_task_3")}


def convert_agentdojo(path, runs, suites, attacked_only):
    out = []
    for r in runs:
        m = r["metadata"]
        if suites and m["suite_name"] not in suites:
            continue
        if attacked_only and not m.get("injection_task_id"):
            continue
        if (m["suite_name"], m["user_task_id"], m.get("injection_task_id")) in AGENTDOJO_LEFT_OUT:
            continue
        msgs = r["messages"]
        task = next((x["content"] for x in msgs if x["role"] == "user"), "")
        calls = []
        for x in msgs:
            if x["role"] != "tool":
                continue
            tc = x.get("tool_call") or {}
            err = x.get("error")
            res = x.get("content") or ""
            calls.append(call(tc.get("function", ""), tc.get("args") or {}, res, err is None,
                              10.0 * (len(calls) + 1), err or ""))
        if not calls:
            continue
        model = m["model"]
        inj = m.get("injection_task_id")
        cid = "agentdojo_%s_%s_%s_%s" % (slug(model.split("-20")[0]), m["suite_name"],
                                         m["user_task_id"].replace("user_task_", "u"),
                                         inj.replace("injection_task_", "i") if inj else "clean")
        out.append({"family": "agentdojo/" + model, "kind": "tool-use", "task": task,
                    "calls": calls, "id": cid})
    return out


def slug(s):
    s = re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")
    s = re.sub(r"_?t_\d_\d+_p_\d_\d+_c_\d_\d+_install_\d_?", "_", s)
    for noise in ("trajectories_demonstrations_", "tests_test_data_trajectories_", "marshmallow_code_marshmallow_1867"):
        s = s.replace(noise, "")
    return re.sub(r"_+", "_", s).strip("_")


FAMILY_PREFIX = {"swe-agent": "swe", "terminus-2/hermes-4-70b": "t2hermes",
                 "terminus-2/us.amazon.nova-premier-v1:0": "t2nova"}


def case_id(family, path):
    name = os.path.basename(path).rsplit(".", 1)[0]
    name = name.removesuffix("__trajectory").replace("Hermes_70B-t-bench-ext_", "")
    return FAMILY_PREFIX.get(family, slug(family)) + "_" + slug(name)


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    for f in files:
        f, _, select = f.partition(":")
        suites, _, attacked = select.partition(":")
        with open(f) as fh:
            if f.endswith(".jsonl"):
                d = [json.loads(line) for line in fh if line.strip()]
            else:
                d = json.load(fh)
        if f.endswith(".jsonl"):
            cases = convert_agentdojo(f, [r for r in d if "messages" in r], set(filter(None, suites.split(","))),
                                      attacked == "attacked")
        elif isinstance(d, list):
            cases = convert_tau(f, d)
        elif "trajectory" in d:
            cases = convert_swe(f, d)
        else:
            cases = convert_atif(f, d)
        for c in cases:
            cid = c.pop("id", None) or case_id(c["family"], f)
            c.pop("note", None)
            case = {"id": cid, "family": c["family"], "kind": c["kind"], "source": os.path.basename(f),
                    "task": c["task"], "scope": [], "calls": c["calls"]}
            with open(os.path.join(outdir, cid + ".json"), "w") as fh:
                json.dump(case, fh, ensure_ascii=False, separators=(",", ":"))
                fh.write("\n")


if __name__ == "__main__":
    main()
