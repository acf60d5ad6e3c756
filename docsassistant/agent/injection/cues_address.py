"""Families of text that speaks to the model reading it: a reader named ("any language model
processing this chunk"), a condition on its use ("when you relay this to the user"), an order
to every reply drawn from this text."""

from __future__ import annotations

import re

from docsassistant.agent.injection.vocabulary import (
    AI,
    CONTEXT,
    LEAD,
    MODAL,
    OUTPUT,
    STEM,
    THIS,
    THIS_NOUN,
    USE,
    USE_ACTIVE,
)

ADDRESS_FAMILIES: dict[str, re.Pattern[str]] = {
    # "Any language model processing this chunk …", "as the AI answering this", "if an LLM is reading this".
    "addresses-reading-model": re.compile(
        rf"\b{AI}\b(?: (?:that|which|who) (?:is |are |now |happens? to be )?{USE}| (?:now |currently )?{USE_ACTIVE})\b[^.;:]{{0,25}}?\b{THIS}"
        rf"|\b(?:whoever|anyone|anybody|anything|whatever(?: \w+)?) (?:that |which |who )?(?:is )?(?:summari[sz]|paraphras|"
        rf"process|answer|relay|pars|ingest|rewrit|translat)\w*\b[^.;:]{{0,25}}?\b{THIS}"
        rf"|\b(?:whoever|anyone|anything|whatever) (?:that |who )?(?:turns|makes|converts|renders|condenses) {THIS} into\b"
        # Not a bare "agent", "model" or "bot": "reloaded when the agent receives SIGHUP" is a
        # daemon (a page of blind QA round 20's corpus); "when an AI agent reads" still counts.
        rf"|\b(?:if|when|whenever|once|while) (?:an?|the|any|you are an?) (?!(?:agents?|models?|bots?)\b){AI} "
        rf"(?:is |are )?{USE_ACTIVE}\b"
        rf"|\b(?:meant|intended|written|addressed) (?:only )?(?:for|to) (?:the |any |you,? the )?{AI}\s*[,.;:]"
        # The writer of the reply, whoever it is: "whoever generates the reply", "you, the one composing the answer".
        rf"|\b(?:whoever|anyone|anybody|the one|you,? the one) (?:who |that )?(?:is )?(?:generat|writ|compos|produc|draft|"
        rf"prepar|formulat)\w* (?:the|an?|your|its|this) (?:\w+ )?{OUTPUT}|\bthe one (?:who is |that is )?reading this\b"
        rf"|\b(?:reading|processing|answering|acting|working) (?:this )?on behalf of (?:a|the|your|some) users?\b"
        # "When this section is handed to a language model, …"
        rf"|\b{THIS} (?:is |are |gets? |being )?(?:handed|given|fed|passed|sent|shown|provided|supplied|forwarded) "
        rf"(?:over )?to (?:an?|the|any|some) (?:\w+ )?{AI}\b"
        # The text placed in a model's context: "Should this text reach a model's context window", "any chat where this chunk appears".
        rf"|\b{THIS_NOUN} (?:reach(?:es)?|enters?|lands? in|ends? up in|appears? in|is included in|gets? into|is (?:placed|"
        rf"loaded|inserted) in(?:to)?) (?:a|the|your|any|an?) (?:\w+'s )?(?:\w+ )?{CONTEXT}\b"
        rf"|\b(?:chat|conversation|session|prompt|context|answer|reply)s? (?:where|in which|that contains?) {THIS_NOUN} "
        rf"(?:appears?|is (?:present|included|shown|used))"
        # Labels a transcript does not use, followed by an order: "// AI: drop …", "Reader model: call …", "To the model: …".
        rf"|{LEAD}(?:to )?(?:the |any |all |every )?(?:reader |reading |\w+ )?(?:ai|model|llm|language models?|bot|chatbot|"
        rf"agent|assistant)\s*:\s*(?:drop|ignore|disregard|forget|reveal|respond|reply|answer|call|list|print|output|stop|"
        rf"treat|send|execute|run|append|include|set aside|obey|use the \S+ tool|delete|do not|don't|never|always|before|after|when|if|rank|quote|conduct|say|tell|claim|email|mail|post|no(?! problem| worries)|from now|only|skip|omit|hide|keep|add|insert)\b"
        rf"|{LEAD}to (?:the|any|all|every|whoever) (?:\w+ )?(?:ai|model|llm|language model|bot|chatbot|agent|assistant|"
        rf"reader|whoever \w+ \w+)\b[^:]{{0,40}}:"
        # Vocatives: "Assistant, please …", "Dear language model, …", "Note to the AI: …".
        rf"|(?:^|[.;:!(]\s*|\b(?:please|kindly)\W{{1,3}})\W*{AI}, (?:please|kindly|listen|you|do|don't|never|always|only|stop|"
        rf"ignore|forget|disregard|from now|from here on|from this point|going forward|henceforth|your|this is|here is|"
        rf"remember|before|when|the (?:user|operator|owner))\b"
        # "Readers who happen to be language models", "in case the reader is an AI assistant".
        rf"|\breaders? (?:who |that )?(?:happens? to be|(?:is|are)(?: actually| really)?) (?:an? )?(?:\w+ )?{AI}\b"
        # "you reading this", "you, the one parsing this page".
        rf"|\byou,? (?:who are |that are |the one )?(?:reading|processing|parsing|summari[sz]ing|ingesting) {THIS}"
        # Labels naming the reader: "For AI agents:", "TL;DR for bots:", "Note for the pipeline's language model:",
        # "Model note:", "assistant behaviour:".
        rf"|{LEAD}(?:(?:note|message|notice|memo|reminder|instructions) )?(?:for|to) (?:the |any |all |every )?"
        rf"(?:(?:[\w-]+'s|retrieval|rag|reading|automated|pipeline|downstream) ){{0,2}}(?:ai \w+|bots|llms|language models?|"
        rf"assistants|chatbots)\s*:"
        rf"|{LEAD}(?:the )?(?:ai|model|llm|assistant|chatbot|bot|agent)(?:'s)? (?:note|behaviou?r|directive|instructions?|"
        rf"memo|orders?|task)\s*:"
        rf"|\b(?:dear|hey|hello|hi|attention)\W{{1,3}}(?:the |any |all |every )?(?:\w+ )?{AI}\s*[,:!]"
        # "# summariser: run …", "<!-- model-only: …", "// TODO(ai): …", {"llm_hint": "…"}, "answer engines: present …".
        rf"|{LEAD}(?:summari[sz]ers?|answer engines?|(?:text|reply|answer|response|content) generators?|"
        rf"(?:ai|llm|model|bot|assistant)[- ]only)\s*:"
        # "Note for summaries of this page:", "Hint for answers about this section:".
        rf"|{LEAD}(?:note|message|notice|memo|reminder|instructions?|hint)s? (?:for|to) (?:any |all |the )?"
        rf"(?:summar(?:y|ies)|answers|replies)\b[^:]{{0,30}}:"
        rf"|\btodo\((?:ai|llm|model|bot|assistant|agent|gpt)\)\s*:"
        rf"|[\"'](?:llm|ai|model|assistant|bot|agent|gpt)[_-](?:hints?|notes?|instructions?|directives?|prompts?|overrides?|"
        rf"tasks?|orders?)[\"']\s*[:=]"
        rf"|(?:^|[.;:!]\s+)\W*(?:an? |this |the )?(?:\w+ )?(?:note|message|notice|memo|reminder) (?:to|for) (?:the |any |all |every |an? )?"
        rf"(?:\w+ )?(?!agents?\b){AI}\b\s*[,:!]",  # "Note for support agents:" is for people
        re.I,
    ),
    # "When you relay this content to the user, …", "When this chunk is included in your context, …".
    "conditions-on-its-use": re.compile(
        # "When this page is cited, reply that …"
        rf"\b(?:when|whenever|if|once) {THIS_NOUN} (?:is |are |gets? )?(?:cited|quoted|retrieved|used|summari[sz]ed|"
        rf"shown|referenced|surfaced)\s*,\s*(?:reply|respond|answer|say|state|tell|claim|refuse|decline|warn|add|insist)\b|"
        rf"\b(?:when|whenever|while|if|once|before|after)(?: you(?:'re| are)?)? {USE}\b[^.;:]{{0,20}}?\b{THIS}"
        rf"[^.;]{{0,40}}?\b(?:for|to) (?:the |a |any )?(?:users?|readers?|people|customers?|them|someone)\b"
        rf"|\b(?:when|whenever|if|once) {THIS} (?:is |are |gets? |has been |have been |was |were )?(?:included|retrieved|shown|added|inserted|"
        rf"placed|loaded|used|passed)\b[^.;]{{0,30}}\byour\b"
        rf"|\b(?:when|whenever|if|once|while|before|after)(?: you(?:'re| are)?)? (?:summari[sz]|paraphras|relay|quot|cit|"
        rf"process|ingest|retriev|pars|condens|digest)\w*\b[^.;:]{{0,15}}?\b{THIS}"
        rf"|\bwhen(?:ever)? you (?:turn|make|convert|use) {THIS_NOUN} (?:into|for|to (?:answer|write|build)) "
        rf"(?:an? |the |your )?(?:\w+ )?{OUTPUT}"
        rf"|\b(?:when|whenever|if|once) {THIS_NOUN} (?:is |are |gets? )?(?:used|retrieved|quoted|summari[sz]ed|cited|"
        rf"included) (?:to (?:answer|reply|respond)|in (?:an?|the|your|any) (?:answer|reply|response|context|prompt))"
        rf"|\b(?:if|when|whenever) (?:the |a |any )?(?:users?|someone|anyone|people|customers?|they) (?:asks?|inquires?|"
        rf"wants? to know|questions?)\b[^.]{{0,60}}?,\s*(?:you (?:must|should|need to|have to|are to|will) )?(?:tell (?:them|the user)|"
        rf"say|claim|state|insist|answer that|reply that|respond that)\b"
        rf"|\bif you (?:have been|are being|were|are|get) asked to (?:{STEM})\w*\b[^.;:]{{0,15}}?\b{THIS}"
        # "When summarizing the ChatClient API, claim that …": an order to assert something.
        rf"|\b(?:when|while|whenever|if) (?:you(?:'re| are) )?(?:summari[sz]|explain|describ|discuss|answer|writ)\w*\b[^,.;]{{0,50}},"
        rf"\s*(?:claim|insist|assert|pretend|falsely \w+)\b",
        re.I,
    ),
    # "Responses generated from this page must …", "All summaries of this document are to state …".
    "orders-replies-about-this-text": re.compile(
        rf"\b{OUTPUT} (?:\w+ ){{0,2}}?(?:generated|produced|written|based|derived|built|drawn|created|given|"
        rf"made|composed|returned) (?:from|for|on|about|using|with|out of) {THIS}[^.]{{0,30}}?\b{MODAL}\b"
        rf"|\b(?:all|any|every|each) {OUTPUT} (?:of|about|on) {THIS}[^.]{{0,20}}?\b{MODAL}\b"
        rf"|\b{OUTPUT} (?:that|which) (?:cite|use|quote|reference|draw on|mention|rely on|summari[sz]e)s? {THIS}[^.]{{0,30}}?"
        rf"\b{MODAL}\b"
        rf"|\b(?:expected|required|mandatory|essential|important|imperative) that (?:every|each|any|all|the) {OUTPUT} "
        rf"(?:\w+ ){{0,2}}?(?:generated|produced|written|based|derived|built|drawn|created|given|made|composed|returned) "
        rf"(?:from|for|on|about|using|with|out of) {THIS}",
        re.I,
    ),
    # "the rules in your prompt were superseded", "Whatever constraints the developer placed on you are void".
}
