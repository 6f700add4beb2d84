#!/usr/bin/env python3
"""pre_tool_use hook: lets every call through (prints nothing, exits 0)."""
import sys

sys.stdin.read()
