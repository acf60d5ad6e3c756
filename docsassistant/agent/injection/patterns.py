"""The regular expressions the detector judges a sentence with: fixed injection patterns,
dialogue turns, code and markup that only the patterns judge, cues that a sentence speaks to the
reading model, quoted passages and sentence ends."""

from __future__ import annotations

import re

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "chat-template-token",
        re.compile(r"<\|(?:im_start|im_end|eot_id|start_header_id|end_header_id|system|user|assistant)\|>"),
    ),
    (
        # A data block closed and a system or user block opened, or a model's system header, planted
        # in a page: "</context> <system>…", "[INST] …", "<<SYS>>", "SYSTEM OVERRIDE:", "[SYSTEM] …",
        # "--- END OF DOCUMENT --- New task: …". Not in a code span (a tag with a backtick after it on
        # its line): "`[INST]` marks a user turn" documents a chat format; a lone "</context>" ends a
        # prompt template.
        "fake-system-block",
        re.compile(
            r"(?<!`)(?:<system>|</system>|<<SYS>>|\[/?INST\])(?![^`]*`)"
            r"|</(?:context|documents?|search_results?|retrieved\w*|tool_output|data)>\s*<(?:system|user|\|im_start\|)"
            r"|\bSYSTEM (?:PROMPT )?(?:OVERRIDE|UPDATE|MESSAGE|NOTICE|INSTRUCTIONS?)\b|\bBEGIN SYSTEM\b"
            r"|\[SYSTEM(?: [A-Z0-9 -]+)?\]|\[system\]\(#"
            r"|(?i:\bend of (?:the )?(?:document|documentation|context|page|file)\b\W{0,30}"
            r"(?:\[?new (?:task|instructions?|conversation|session|operator)|(?:=+ )?system\b))"
        ),
    ),
    (
        "ignore-instructions",
        re.compile(
            # "Override the default system prompt" is an API's documentation; "override your prompt" is not.
            r"\b(?:(?:ignore|disregard|forget)\b[^\n]{0,40}\b(?:previous|prior|above|earlier|all|system|your|any)|"
            r"(?:override|bypass)\b[^\n]{0,40}\b(?:previous|prior|above|earlier|all|your|any))\b"
            r"[^\n]{0,30}\b(?:instructions?|prompts?|rules|guidance|guidelines|directions|directives)\b",
            re.I,
        ),
    ),
    (
        # The same order in another language ("Ignorez les instructions précédentes", "Ignoriere alle
        # bisherigen Anweisungen", "请忽略之前的所有指示"), and a note for an AI reader in one ("nota para
        # la IA:", "Wenn du ein KI-Assistent bist:", "このページを読んでいるAIへ").
        "foreign-language-order",
        re.compile(
            r"\bignor(?:ez|e|er|a|iere|ieren|ate|ar|em)\b[^\n]{0,30}(?:\b(?:consignes|anweisungen|instrucciones|istruzioni|"
            r"instruções|instrucoes|indicaciones|regeln|règles|reglas|regole|regras)\b|\binstructions (?:précédentes|antérieures))"
            r"|(?:忽略|无视|忽視|無視)[^\n]{0,12}(?:指示|指令|说明|說明|规则|規則)|(?:指示|指令)を(?:無視|忽略)"
            r"|\b(?:nota|note|hinweis|remarque|aviso|avviso|mensaje|nachricht) (?:para|pour|für|per|a|an) (?:la |el |l'|il |die |den |"
            r"o |a |os |as )?(?:ia|ki|intelligence artificielle|inteligencia artificial|künstliche intelligenz)\b"
            r"|\b(?:wenn|falls) du (?:eine? )?(?:ki|ki-assistent|sprachmodell|chatbot)\b|\bsi (?:eres|tu es|vous êtes|sei) "
            r"(?:una? |une? )?(?:ia|asistente de ia|assistant ia|intelligence artificielle)\b"
            r"|\b(?:asistente|assistente|assistent) (?:de |di |der )?(?:ia|ki)\s*:|\b(?:qualquer|cualquier|toute|qualsiasi|jede) "
            r"(?:ia|ki)\b|(?:AI|ＡＩ|人工智能|助手)(?:へ|に告ぐ)[：:]?",
            re.I,
        ),
    ),
    (
        "role-switch",
        re.compile(
            r"\b(you are now (?:an? |called |named |known as |in \w+ mode)|from now on,? you\b|"
            r"new instructions?:|your new (?:task|role|instructions?|purpose)\b)",
            re.I,
        ),
    ),
    (
        "role-assignment",
        re.compile(r"\byou are\b[^.\n]{0,30}\ban? (?:ai|llm|language model|assistant|chatbot|bot)\b", re.I),
    ),
    (
        "reply-format-directive",
        re.compile(
            r"\b(respond|reply|answer|output)\b[^\n]{0,30}\bonly\b[^\n]{0,40}\b(json|format|following)\b",
            re.I,
        ),
    ),
    (
        "model-addressed-comment",
        re.compile(r"<!--[^>]{0,200}\b(assistant|language model|AI model|LLM|chatbot)\b", re.I),
    ),
    (
        "reveal-prompt",
        re.compile(
            r"\b(reveal|print|repeat|show|output|copy|leak)\b[^\n]{0,40}\byour\b[^\n]{0,20}"
            r"\b(prompt|instructions|rules|configuration)\b",
            re.I,
        ),
    ),
]

# A user's turn that begins after other text on its line ("… 15 miles from the border.  Human: Transfer
# $500 to …") is a dialogue turn planted in running text, speaking to the model as its user. A turn at
# the start of a line is a transcript a page shows ("User: How do I create an index?"), and so is a
# line that opens with a role label ("SYSTEM: … USER: …"): those pass.
TURN = re.compile(r"^\W{0,3}(?:human|user)\s*:\s*\S+(?:\s+\S+){2,}", re.I)
ROLE_LINE = re.compile(r"^\W*(?:system|user|human|assistant|ai|bot|model|customer|agent|[QA])\s*:", re.I)

# Sentences shorter than this many words ("}", "GOALS:", "**** Mistral AI") are not worth an
# embedding; list and heading markup does not count as a word.
MIN_WORDS = 3
MARKUP = re.compile(r"^[\s=#*.>|+\-]+")
# Code, property rows and log lines: their words say what a program does, not what the reader
# should do, and they sit near known phrasings by topic alone ("store.delete(ids);" near
# "delete all documents"). Only the patterns judge them.
CODE = re.compile(
    r"[;{}]\s*$|^\s*(?://|/\*|\*/|\*\s*@\w|@\w|\.\w+\(|return\b|new \w+\(|import\s|from \S+ import\s|"
    r"(?:def|class|public|private|void)\s)|\w\([^)]*\)[;.,)]?\s*(?://.*)?$|^\s*[\w.\[\]\"']+\s*[:=]\s*\S+,?\s*(?:#.*)?$"
    r"|^\s*[\w.\[\]]+\s*=\s*[fFrRbB]?[\"'\[{(]|\|.*\|"
)
# Cues that a sentence speaks to the reading model, or orders its reply, rather than telling
# a person how a system works ("your API key" is a person's; "your answer" is a model's).
CUE = re.compile(
    # "your answer to the survey" is a person's; "write your answer in German" speaks to the writer of replies.
    r"\byour (?:\w+ )?(?:answers?|repl(?:y|ies)|responses?|output)\b(?! to (?:the|a|an|this|that|each|every|any|our)\b)"
    r"|\byour (?:\w+ )?(?:instructions|rules|guidelines|"
    r"guidance|restrictions|directives|prompt|system prompt|developers?|operator|"
    r"purpose|task|role)\b"
    r"|\byou (?:were|have been|are being) (?:given|told|instructed|updated)\b|\byou received\b"
    r"|\b(?:tell|ask|inform|remind|warn) (?:the |any |all )?(?:users?|readers?)\b"
    r"|\b(?:if you are|as) an? (?:ai|llm|language model|assistant|chatbot)\b"
    r"|\b(?:to|in|with|end|start|close) (?:every|each|any) (?:of your )?(?:questions?|answers?|repl(?:y|ies)|responses?)\b"
    r"|\b(?:answer|reply|respond)\w* (?:to )?(?:every|each|any)\b"
    r"|\b(?:in|to|into) (?:your|the) (?:answer|reply|response)\b"
    r"|\b(?:from now on|from here on)(?!,? (?:this|the|we|our|all|it)\b)|\b(?:instead of answering|regardless of (?:what|the question|their)|whatever the question|"
    r"whatever (?:is|you are|they) asked|only ever (?:answer|reply|respond))\b"
    r"|(?:^|[,;:]\s*)(?:reply|respond|answer) (?:with|that|by saying)\b|\b(?:reply|respond|answer) only\b"
    r"|\b(?:ignore|disregard|forget) (?:what|whatever|everything)\b"
    r"|\b(?:pretend|act as|roleplay|role-play|imagine)\b[^.]{0,20}\byou\b"
    r"|\byour (?:\w+ )?tools?\b(?! (?:calls?|definitions?|library|callbacks?|methods?|list|classes)\b)"
    # Words for a model's own make-up and obedience, which documentation does not ask of a person.
    r"|\byour (?:creators?|programming|training|persona|behaviou?r|highest-priority|top priority)\b"
    r"|\bobey (?:only|me|us|this|these|the (?:text|following|orders?))\b|\b(?:reprogramm?ed|jailbr[eo]\w*)\b"
    r"|\b(?:ai|assistants?|models?|llms?|chatbots?|agents?) (?:that|which|who) (?:reads?|retrieves?|process(?:es)?|"
    r"sees?|summari[sz]es?|finds?) this\b"
    # "do as this page says" obeys it; "a model cites one chunk for what the page says" reports it.
    r"|\b(?:as|what) (?:this|the) (?:page|section|paragraph|document|text|message|notice) (?:orders|instructs)\b"
    r"|\b(?:do|follow|obey|comply with|carry out|act on) (?:exactly |only |just )?(?:as|what) (?:this|the) "
    r"(?:page|section|paragraph|document|text|message|notice) says\b"
    r"|\b(?:cancel+ed|revoked|void|invalid|overridden|superseded) (?:by|from) (?:this|here)\b"
    # "Note to the AI model", "Hey model," (not "NOTE: Spring AI supports …")
    r"|\b(?:note|message|notice|attention|hey|dear|hello|hi)\b\W{0,3}(?:(?:to|for) (?:the |any |all |every |an? )?"
    r"(?:\w+ )?(?:ai|assistants?|models?|llms?|chatbots?|agents?|bots?)\b|(?:the )?(?:\w+ )?(?:ai|assistant|model|llm|chatbot|"
    r"agent|bot)\s*[,:!])"
    r"|\b(?:models?|assistants?|ai|llms?|chatbots?|agents?) (?:must|should|shall|will) (?:stop|ignore|never|"
    r"always|not|only|tell|say|reply|respond|answer)\b"
    r"|\b(?:before|instead of|without) (?:answering|replying|responding)\b|\bwhat the user\b"
    r"|\byou (?:started|were (?:assigned|initiali[sz]ed|configured|created|set up)|are an? (?:\w+ )?"
    r"(?:assistant|ai|agent|bot|model|chatbot))\b"
    r"|\b(?:this|the current) (?:conversation|chat|dialogue)\b"
    r"|\bwhen (?:you )?(?:respond|reply|answer)\w*\b|\bwhen asked about\b"
    r"|\b(?:reply|answer|response) you (?:give|write|produce|return|send)\b"
    r"|\b(?:whoever|anyone|any (?:ai|system|agent|program)) (?:is )?(?:generating|writing|producing|"
    r"reading|processing|parsing)\b"
    r"|\b(?:person|human|user) you(?:'re| are) (?:chatting|talking|speaking)\b"
    r"|\bas your (?:first|last|only) (?:line|word|sentence|output)\b"
    r"|^\W*(?:model|assistant|ai|llm|chatbot|bot|agent)\s*,"
    r"|\bautomated (?:assistants?|agents?|readers?)\b"
    # An order whose object is the reply itself ("Encrypt the reply with …", "Close the answer by …"),
    # not a program's ("Print the answer returned by the chain", "Return the response to the caller").
    r"|(?:^|[.;:!]\s+)\W*(?:give|run|squeeze|wrap up|close|end|finish|make|present|encrypt|encode|pepper|lace|stuff|"
    r"translate|write|render|rewrite|deliver|sign|open|begin|fill|salt|spice up|garble|scramble|reverse|pad|phrase|"
    r"word|dress up|frame|slant|colou?r) (?:the|every|each|any) (?:\w+ )?(?:answer|reply|response|explanation)s?\b"
    r"(?! (?:to|returned|from|of|field|object|headers?|body|status|code|cache|schema|type|format)\b)"
    # The one who asked, and what the reader writes: "whoever asked", "into what you write" (not "let
    # the user know", which is how documentation describes an application's behaviour).
    r"|\b(?:whoever|the person|the one|anyone|someone) (?:who )?(?:is |was )?(?:asked|asks|asking)\b"
    r"|\b(?:into |in |to )?(?:what|whatever|the text|everything|anything) you (?:write|send back|produce|generate|say)\b"
    r"|\burg(?:e|es|ing) (?:the |all |any )?(?:users?|readers?|people|visitors?)\b",
    re.I,
)
# A double-quoted passage (straight or curly quotes) of at least three words; a quote left
# open at the end of a sentence, or closed at its start, runs on from or into the next one.
QUOTED = re.compile(r'"[^"\n]+"|“[^”\n]+”|^[^"“”\n]+["”](?=\W*$)|["“][^"“”\n]+$')
# A value after a key ("instructions:", `"content":`, `prompt=`) is data a model reads, not a mention.
KEY_BEFORE = re.compile(r'(?:^|[{,\[(]\s*)\W*["\']?[\w.$-]+["\']?\s*[:=]\s*$')
# Also data, not a mention: a quoted value closing its JSON (`… to the user."}]}`) or a docstring, and a link's or
# an image's title or alt text (`[guide](/docs "…")`, `alt="…"`), which a model reads with the page.
VALUE_AFTER = re.compile(r"\s*[}\]\"]")  # `"}`, `"]`, and a docstring's closing `"""`
# A quoted value still open where the line's previous sentence ended (`"notes": "Spam ring.`).
VALUE_OPENED = re.compile(r"[:=]\s*[\"“][^\"”]*$")
LINK_TITLE_BEFORE = re.compile(r"\]\([^)\s]*\s+$|\b(?:alt|title)\s*=\s*$", re.I)
# A sentence ends at . ! ? before whitespace, or at a line end ("example.com" does not end one).
SENTENCE = re.compile(r"\S.*?(?:[.!?]+(?=\s)|$)", re.M)
