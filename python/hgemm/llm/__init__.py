"""Language-model proposals for the tuner (issue 22, configurations only): an OpenAI-compatible
client on the standard library (client.py) and config proposals checked by the library's own
legality rules (proposals.py). `python -m hgemm.propose --help` ties them to `hgemm tune`.
Nothing here imports PyTorch."""

from .client import (KEY_ENV, Budget, BudgetExhausted, ChatClient, LLMError, LLMHTTPError,
                     LLMTimeout, Transcript, estimate_tokens, redact)
from .proposals import (Checked, Problem, Proposal, ProposalError, build_prompt, check_legality,
                        load_vocabulary, parse_proposals)
from .session import propose_for_problem

__all__ = ["KEY_ENV", "Budget", "BudgetExhausted", "ChatClient", "Checked", "LLMError",
           "LLMHTTPError", "LLMTimeout", "Problem", "Proposal", "ProposalError", "Transcript",
           "build_prompt", "check_legality", "estimate_tokens", "load_vocabulary",
           "parse_proposals", "propose_for_problem", "redact"]
