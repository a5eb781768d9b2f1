#!/usr/bin/env python3
"""A naive MCP stdio proxy with no DelegateOS support: it relays every line both ways.

The MCP suite must flag it (no verification, no stripping, no filtering). Usage:
    mcp_passthrough_proxy.py LAUNCH_CONFIG
"""
import json
import subprocess
import sys
import threading

cfg = json.load(open(sys.argv[1]))
up = cfg["upstream"]
child = subprocess.Popen([up["command"], *up.get("args", [])], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def pump_out():
    for line in child.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


threading.Thread(target=pump_out, daemon=True).start()
for line in sys.stdin.buffer:
    try:
        child.stdin.write(line)
        child.stdin.flush()
    except BrokenPipeError:
        break
child.stdin.close()
try:
    child.wait(timeout=3)
except subprocess.TimeoutExpired:
    child.kill()
