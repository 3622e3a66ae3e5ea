"""The conversations with the model: per problem for configs (prompt, reply, strict parse,
legality), and per set of problems for source rewrites (prompt, reply, the sandbox, the store),
each feeding its rejections and failures back into the next round until it has what it asked for
or the rounds or the budget run out."""

import os
from dataclasses import dataclass, field

from .client import BudgetExhausted, LLMError
from .proposals import (ProposalError, build_prompt, check_legality, database_failures,
                        parse_proposals, similar_best)
from .rewrites import (append_variant_lines, build_source_prompt, parse_source_reply,
                       prompt_sha256, similar_rewrites, store_variant, stored_rewrites,
                       variant_db_lines)
from .sandbox import try_candidate


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


def _ask(client, messages, outcome, r, **kw):
    """The reply's text, or None with outcome.stopped saying why the rounds end."""
    try:
        return client.chat(messages, **kw)
    except BudgetExhausted as e:
        outcome.stopped = str(e)
    except LLMError as e:
        outcome.stopped = f"round {r}: {e}"
    return None


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
        reply = _ask(client, messages, outcome, r)
        if reply is None:
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


@dataclass
class RewriteOutcome:
    problems: list
    tried: list = field(default_factory=list)     # (round, CandidateOutcome) per parsed reply
    rejected: list = field(default_factory=list)  # (round, reason) of unparseable replies
    stored: list = field(default_factory=list)    # directories of the variants kept
    stopped: str = ""


def rewrite_for_problems(client, cli, config, problems, family, records, hardware, workdir,
                         variants_dir, *, rounds=2, prompt_tokens=40000, reply_tokens=32000,
                         min_reward=1.0, sandbox=None, variant_db=None, log=print):
    """Asks `client` for rewrites of the family header (`family`, its text) instantiated as
    `config`, showing it the accepted rewrites already under `variants_dir` nearest `problems`
    with their speedups, runs each through the sandbox on `problems` (files under `workdir`),
    feeds every failure back into the next prompt, and stores the first accepted rewrite whose
    reward reaches `min_reward` under `variants_dir`, and its measurements with their provenance
    as "variant" lines in the database `variant_db` (default variants_dir/variants.jsonl).
    `sandbox`: keyword arguments for sandbox.try_candidate (limits, memcheck, stop). Errors of
    the model, the transport or a candidate end in the outcome, never in an exception."""
    outcome = RewriteOutcome(list(problems))
    if client is None:
        return outcome
    first = problems[0]
    failures = [f"{s} {c}: {d} ({why})" for s, c, d, why in database_failures(records, first)]
    similar = similar_best(records, first)
    examples = similar_rewrites(stored_rewrites(variants_dir), problems)
    shapes = [p.shape for p in problems]
    for r in range(1, rounds + 1):
        messages = build_source_prompt(family, config, problems, similar, failures, hardware,
                                       rewrites=examples, token_budget=prompt_tokens)
        reply = _ask(client, messages, outcome, r, max_tokens=reply_tokens)
        if reply is None:
            break
        try:
            source = parse_source_reply(reply)
        except ProposalError as e:
            outcome.rejected.append((r, str(e)))
            failures.append(f"round {r}: reply rejected: {e}")
            log(f"  round {r}: reply rejected: {e}")
            continue
        candidate = try_candidate(source, config, shapes, os.path.join(workdir, f"round-{r}"),
                                  cli=cli, **(sandbox or {}))
        outcome.tried.append((r, candidate))
        log(f"  round {r}: {candidate.summary()}")
        if not candidate.accepted:
            failures.append(f"round {r}: {candidate.summary()}")
            continue
        reward = candidate.record["reward"]
        if reward < min_reward:
            failures.append(f"round {r}: correct but too slow: reward {reward:.4f} (mean speedup "
                            f"{candidate.record['mean_speedup']:.4f}x) below {min_reward}")
            continue
        prompt_hash = prompt_sha256(messages)
        path = store_variant(variants_dir, source, candidate.record, model=client.model,
                             prompt_hash=prompt_hash)
        db = variant_db or os.path.join(variants_dir, "variants.jsonl")
        append_variant_lines(db, variant_db_lines(os.path.basename(path), candidate.record,
                                                  model=client.model, prompt_hash=prompt_hash))
        outcome.stored.append(path)
        log(f"  round {r}: stored {path}, its measurements in {db}")
        break
    return outcome
