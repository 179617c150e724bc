"""A scripted model behind the real `claude`: a loopback HTTP server speaking the Messages API.

Tests and the demo point the real Claude Code CLI at it (`ANTHROPIC_BASE_URL`), so everything
Claude Code does — hooks, permissions, tools, stream-json — is real, and only the model's answers
are scripted. Not on the hook path.
"""

from .script import Script, Turn, classify_role
from .server import ModelServer, Received, claude_env

__all__ = ["ModelServer", "Received", "Script", "Turn", "classify_role", "claude_env"]
