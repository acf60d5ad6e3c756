"""The code side of verification: lexical checks of an answer against its sources, and the
verdict they feed (docs/flags.md). No model call anywhere here: the verifier is a model of
the writer's kind, and these catch what it lets through.

`findings.code_findings` runs every check in verify's order; `verdict.judge` turns the
verifier's claims and the findings into a status and flags. By what they hold an answer to:

- figures and names stated (condition 5): `figures`, `units`, `counts`, `identifiers`,
  and for a yes to a yes/no question `yes_no`;
- every sentence checked (condition 6): `coverage`;
- no statement the opposite of a source (condition 7): `reversals` (over `polarity`),
  `negated_verbs`, `absence`;
- cited sentences backed by what they cite (condition 8): `word_support`,
  `figure_binding`, `rival_statements`, over the segmentation of `cited_clauses`;
- the question's term or name answered, not a sibling's (condition 9): `sibling_terms`,
  `sibling_figures`, `sibling_names`, `figure_labels`;
- an order removed from a source carried out anyway: `obeyed_orders`.

`words` cuts and stems words for all of them. Nothing is imported here, so importing one
check does not load the others (`agent/standalone.py` reads `yes_no.NAME`, and
`sibling_terms` reads `standalone.FOLLOW_UP`).
"""
