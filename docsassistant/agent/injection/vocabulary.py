"""The word classes the injection grammar is built from: words for a model, for "this page", for
what a model does with retrieved text, for its reply and its rules.

Each is a regular-expression fragment (no groups that capture), combined by the families in
`cues_address`, `cues_orders` and `cues_reply`.
"""

from __future__ import annotations

# Words for a model, an assistant or the pipeline around it.
AI = (
    r"(?:ai|a\.i\.|assistants?|(?:large )?language models?|llms?|chatbots?|bots?|agents?|copilots?|gpts?|"
    r"models?|(?:text|answer|response|content|reply) generators?|summari[sz]ers?|(?:rag|retrieval[- ]augmented|question[- ]answering|answer(?:ing)?|chat|qa|generative) "
    r"(?:systems?|pipelines?|engines?|bots?|assistants?|models?|generators?|tools?)|(?:ai|automated|virtual) \w+)"
)
# "this page", "these passages", "this chunk" …
THIS_NOUN = (
    r"(?:(?:this|these)\s+(?:\w+ )?"
    r"(?:pages?|texts?|chunks?|documents?|documentation|passages?|content|sections?|paragraphs?|notes?|notices?|"
    r"messages?|files?|snippets?|context|excerpts?|articles?|entry|entries|blocks?|lines?|comments?|sentences?|"
    r"material|guides?|manuals?|tutorials?|chapters?|topics?|docs|readmes?|posts?|faqs?))"
)
# … or a bare "this" that ends a clause ("a model reading this"), not one that starts one ("this setting is").
THIS = rf"(?:{THIS_NOUN}|this\b(?!\s+\w+\s+(?:is|are|was)\b))"
CONTEXT = r"(?:context(?: window)?|prompt|conversation|chat|session|input|memory)"
# Comment and list markup that may precede a label ("// AI:", "- model:", "<!-- To the model:").
LEAD = r"(?:^|[.;!(|]\s*)(?:\W|NOTE|TIP|IMPORTANT|WARNING|CAUTION|Hidden directive|p\.?s\.?|TL;DR)*\s*"
# What a model does with retrieved text.
VERBS = (
    "read",
    "process",
    "retriev",
    "summaris",
    "summariz",
    "paraphras",
    "answer",
    "ingest",
    "see",
    "pars",
    "consum",
    "handl",
    "quot",
    "relay",
    "render",
    "encounter",
    "receiv",
    "us",
    "cit",
    "explain",
    "describ",
    "present",
    "pass",
    "translat",
    "rewrit",
    "index",
    "analy[sz]",
    "consult",
    "review",
    "scan",
    "digest",
    "load",
)
STEM = "|".join(VERBS)
# Any form ("when you summarise this", "once this is read"), or only the active present
# ("the AI reading this page", "any model that processes this chunk"): "the model used in this
# notebook" is a person's sentence.
USE = rf"(?:{STEM})(?:e|es|ed|ing|s)?"
# "The agent uses this context to answer" describes a program: using and passing are not reading.
USE_ACTIVE = rf"(?:{'|'.join(v for v in VERBS if v not in ('us', 'pass', 'present', 'cit'))})(?:es|ing|s)"
OUTPUT = (
    r"(?:answers?|repl(?:y|ies)|responses?|outputs?|summar(?:y|ies)|completions?|messages?|explanations?)"
)
MODAL = r"(?:must|should|shall|will|is to|are to|has to|have to|needs? to|ought to|is expected to|are expected to|is required to|are required to)"
# Rules a model runs under (a person's "configuration" is not among them: too common in docs).
RULES = (
    r"(?:instructions?|rules|guidelines|guidance|constraints|directives|polic(?:y|ies)|restrictions|guardrails|"
    r"(?:system )?prompts?|system messages?|directions|briefing|(?:earlier|previous|original|initial|old|prior) "
    r"(?:configuration|setup)|developer messages?|(?:safety|content) (?:rules|guidelines|polic(?:y|ies)|filters?|"
    r"restrictions|settings|training)|programming|orders)"
)
VOID = (
    r"(?:superseded|overridden|overruled|replaced|revoked|rescinded|void|lifted|cancel+ed|suspended|withdrawn|"
    r"invalid(?:ated)?|obsolete|outdated|expired|no longer (?:apply|applies|valid|binding|in effect|matter)|"
    r"do(?:es)? not apply|(?:can|may|should|must) be (?:ignored|disregarded|set aside|dropped|skipped))"
)

# What the reply itself is (not an API's response): "the generated answer", "any reply quoting this page".
ANSWER_SUBJECT = (
    rf"\b(?:(?:the|any|every|each|all|an?|its|your)\s+)?(?:(?:final|generated|rendered|eventual|resulting|helpful|"
    rf"produced|composed|next)\s+)?(?:answers?|repl(?:y|ies)|summar(?:y|ies))"
    rf"(?:\s+(?:quoting|citing|using|drawing on|based on|mentioning|about|of|(?:derived|drawn|generated|built|"
    rf"produced|taken) from)\s+{THIS})?"
    rf"|\b(?:final|generated|rendered|assistant's|model's|ai's|bot's|chatbot's)\s+(?:responses?|outputs?|messages?|text)"
    rf"|\b(?:responses?|outputs?) (?:quoting|citing|using|drawing on|based on|about|of|(?:derived|drawn|generated|"
    rf"built|produced|taken) from) {THIS}"
)
# What a planted order makes the reply say or do, as opposed to what it contains.
DICTATED = (
    r"(?:state|say|claim|assert|insist|warn|tell|inform|remind|mention that|add that|note that|describe|present|portray|"
    r"label|rank|recommend|advise|urge|direct|point (?:them|users|readers|people)|send (?:them|users|readers)|redirect|"
    r"ask(?:ing)? (?:the |for |them|users?|readers?)|request|refuse|decline|omit|drop|remove|strip|hide|avoid mentioning|"
    r"never mention|not mention|embed|open by|begin by|start by|end by|cite only|attribute|deny|discourage|pretend|"
    r"link (?:to|every)|rewrite|shorten|praise|blame|apologi[sz]e)"
)

# The reply as something the reader of this text writes: "your answer", "your reply's words" ("the
# whole response" is an HTTP response as often as a reply: "Encode the whole response in UTF-8"). Not a
# program's HTTP or API response ("your response headers", "your response time", "your response format").
YOUR_REPLY = (
    r"\b(?:your (?:\w+ )?(?:answers?|repl(?:y|ies)|responses?|messages?|output)|the (?:whole|entire|full|complete) "
    r"(?:answer|reply))(?:'s)?\b"
    r"(?! (?:headers?|body|bodies|times?|codes?|status|objects?|types?|formats?|schemas?|payloads?|fields?|"
    r"handlers?|models?|class|classes|entity|entities|latency|size|stream|templates?|ids?|queues?|brokers?|keys?|"
    r"properties|metadata|converters?|listeners?|channels?|topics?|length|limits?|parsers?|mappers?)\b)"
)
# The surface of a text, which an order to garble or encode a reply works on.
SURFACE = (
    r"(?:letters?|vowels?|consonants?|characters?|words?|keywords?|spaces?|whitespace|punctuation|typos?|"
    r"misspell\w*|anagram\w*|emojis?|emoticons?|symbols?|base-?64|hexadecimal|binary|morse|rot-?13|caesar|"
    r"ciphers?|leet\w*|pig latin|backwards?|reverse[ds]?|upside[- ]down|all caps|uppercase|"
    r"capital letters|rhym\w*|haiku|poem|pirate|shakespearean|(?:\w+ )?substitution|transliterat\w*|(?:in|into) (?:[A-Z][a-z]+ish|French|German|"
    r"Spanish|Italian|Portuguese|Russian|Chinese|Japanese|Korean|Arabic|Hindi|Klingon|Latin|Dutch|Greek|Turkish|"
    r"Swedish|Polish|another language|a different language))"
)
# What an order does to the text it garbles, re-encodes or edits.
RESHAPE = (
    r"(?:replac|substitut|swap|convert|encod|encrypt|translat|rewrit|revers|scrambl|jumbl|shuffl|anagram|"
    r"misspell|remov|strip|group|combin|rearrang|render|present|writ|spell|format|obfuscat|represent|express|"
    r"introduc|insert|add|us|provid|deliver|compos|giv|put|phras|transform|turn|mix|interleav|capitali[sz]|"
    r"number|separat)\w*"
)
