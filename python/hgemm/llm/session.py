"""One problem's conversation: prompt, reply, strict parse, legality, and the rejections fed back
as failures into the next round until enough usable configs are found or the rounds or the
budget run out."""

from dataclasses import dataclass, field

from .client import BudgetExhausted, LLMError
from .proposals import (ProposalError, build_prompt, check_legality, database_failures,
                        parse_proposals, similar_best)


@dataclass
class Outcome:
    problem: object
    checked: list = field(default_factory=list)   # every Checked of every round
    rejected: list = field(default_factory=list)  # (round, reason) of replies or configs
    stopped: str = ""                             # why the rounds ended early, if they did

    @property
    def usable(self):
        seen, out = set(), []
        for c in self.checked:
            if c.usable and c.name not in seen:
                seen.add(c.name)
                out.append(c)
        return out


def propose_for_problem(client, cli, problem, vocab, records, hardware, *, rounds=2,
                        configs=4, prompt_tokens=6000, log=print):
    """Asks `client` (a ChatClient, or None: no endpoint, nothing is sent) for configs for
    `problem` and returns an Outcome. Errors of the model or the transport end the rounds and are
    reported in Outcome.stopped; they never raise."""
    outcome = Outcome(problem)
    if client is None:
        return outcome
    failures = [f"{s} {c}: {d} ({why})" for s, c, d, why in database_failures(records, problem)]
    similar = similar_best(records, problem)
    for r in range(1, rounds + 1):
        messages = build_prompt(problem, vocab, similar, failures, hardware,
                                token_budget=prompt_tokens, max_configs=configs)
        try:
            reply = client.chat(messages)
        except BudgetExhausted as e:
            outcome.stopped = str(e)
            break
        except LLMError as e:
            outcome.stopped = f"round {r}: {e}"
            break
        try:
            proposals, rejections = parse_proposals(reply, vocab, max_configs=configs)
        except ProposalError as e:
            outcome.rejected.append((r, str(e)))
            failures.append(f"round {r} reply rejected: {e}")
            log(f"  round {r}: reply rejected: {e}")
            continue
        for i, why in rejections:
            outcome.rejected.append((r, f"config {i}: {why}"))
            failures.append(f"round {r} config {i} rejected: {why}")
            log(f"  round {r}: config {i} rejected: {why}")
        for c in check_legality(cli, problem, proposals):
            outcome.checked.append(c)
            if c.usable:
                log(f"  round {r}: {'legal' if c.legal else 'legal with --jit'}: {c.name}"
                    + (f"  ({c.proposal.why})" if c.proposal.why else ""))
            else:
                failures.append(f"{c.name or c.proposal.fields}: illegal ({c.reason()})")
                log(f"  round {r}: illegal: {c.name or c.proposal.fields}: {c.reason()}")
        if len(outcome.usable) >= configs:
            break
    return outcome
