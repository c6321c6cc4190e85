"""Real agent transcripts read into ledger events (``docs/transcripts.md``).

``read_transcript(path, format="auto")`` returns the sessions a transcript holds,
each as ``ImportedSession(session_id, agent, events, source)`` whose ``events``
go straight into ``ledger.append_many`` on a new session. Recorded provider
usage becomes the ledger's usage (disjoint input, cache read, cache write and
output counts), so the meter anchors on what the provider reported.

Formats: ``claude-code`` (session logs and ``claude -p`` stream-json output),
``codex`` (Codex CLI rollout files), ``openhands`` (evaluation output and
trajectories), ``openai`` and ``anthropic`` (a request body, optionally with
its ``response``). ``auto`` tells them apart and says so when it cannot.
"""

from ctxbudget.errors import TranscriptError
from ctxbudget.transcripts.reading import TRANSCRIPT_FORMATS, detect_format, read_transcript
from ctxbudget.transcripts.session import ImportedSession

__all__ = [
    "TRANSCRIPT_FORMATS",
    "ImportedSession",
    "TranscriptError",
    "detect_format",
    "read_transcript",
]
