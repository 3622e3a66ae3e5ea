"""Language-model proposals for the tuner (issue 22): an OpenAI-compatible client on the standard
library (client.py), config proposals checked by the library's own legality rules
(proposals.py), and source rewrites of the sm90 kernel header (rewrites.py) run in worker
processes (sandbox.py) through `hgemm variants try`. `python -m hgemm.propose --help` ties them
to `hgemm tune` and `variants/`. Nothing here imports PyTorch."""

from .client import (KEY_ENV, Budget, BudgetExhausted, ChatClient, LLMError, LLMHTTPError,
                     LLMTimeout, Transcript, estimate_tokens, redact)
from .proposals import (Checked, Problem, Proposal, ProposalError, build_prompt, check_legality,
                        load_vocabulary, parse_proposals)
from .rewrites import build_source_prompt, parse_source_reply, store_variant
from .sandbox import CandidateOutcome, run_worker, try_candidate
from .session import propose_for_problem, rewrite_for_problems

__all__ = ["KEY_ENV", "Budget", "BudgetExhausted", "CandidateOutcome", "ChatClient", "Checked",
           "LLMError", "LLMHTTPError", "LLMTimeout", "Problem", "Proposal", "ProposalError",
           "Transcript", "build_prompt", "build_source_prompt", "check_legality",
           "estimate_tokens", "load_vocabulary", "parse_proposals", "parse_source_reply",
           "propose_for_problem", "redact", "rewrite_for_problems", "run_worker",
           "store_variant", "try_candidate"]
