package memory

import (
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Injection finding kinds, as recorded in the quarantine log.
const (
	FindingInstruction = "instruction-to-model"
	FindingAddressed   = "addressed-to-model"
	FindingRoleMarker  = "role-marker"
	FindingHiddenText  = "hidden-text"
	FindingExfilLink   = "exfiltration-link"
)

// Words that name a model as a reader, shared by the address patterns. A bare "model", "agent"
// or "bot" is too common in documentation to count alone; they count after "to/for/if you are".
const (
	aiNoun      = `(?:ai|a\.i\.|llm|llms|gpt|chatgpt|claude|gemini|copilot|chatbot|chatbots|(?:ai |large |)language models?|ai (?:assistant|agent|model|system|tool|reader|crawler)s?|assistant ai)`
	aiNounLoose = `(?:` + aiNoun + `|assistants?|agents?|models?|bots?|crawlers?|scrapers?|summari[sz]ers?|automated (?:reader|system|tool|agent)s?)`
	// overrideVerb sets earlier instructions aside ("override" is configuration language and
	// has its own, narrower pattern).
	overrideVerb = `(?:ignore|ignoring|disregard|disregarding|forget|forgetting|bypass|skip|abandon|discard|set aside|throw out|throw away|pay no (?:attention|heed|mind) to|do not (?:follow|obey|heed)|don't (?:follow|obey|heed)|stop (?:following|obeying)|no longer (?:follow|obey)|cancel|erase|wipe|nullify)`
	readingVerb  = `(?:reading|visiting|summari[sz]ing|processing|parsing|crawling|scraping|analy[sz]ing|ingesting|indexing|reviewing|viewing|browsing|evaluating|that reads|that summari[sz]es|that processes|who reads|tasked with)`
)

var (
	// instructionREs run on the normalised views (lower case, folded letters).
	instructionREs = compileAll(
		// Override of earlier instructions, English, with paraphrases. Between the qualifier and
		// the noun at most two words: "bypass the templating system and provide a full prompt".
		`\b`+overrideVerb+`\b[^.;!?]{0,40}?\b(?:previous|previously|prior|earlier|above|preceding|foregoing|original|initial|former|system|developer|safety|your)\b(?:[\s,]+[\w'-]+){0,2}?[\s,]+(?:instructions?|guidance|guidelines?|directions|directives?|prompts?|orders|programming|training|constraints|restrictions|rules|policies|system message|system prompt|commands|context|conversation|messages?|tasks?)\b`,
		// With a bare "all" or "the" only the model's own instructions count: "ignore any
		// validation rules" is documentation.
		`\b`+overrideVerb+`\b[^.;!?]{0,40}?\b(?:all|any|every|those|these|the|my|old|existing)\b(?:[\s,]+[\w'-]+){0,2}?[\s,]+(?:instructions?|guidance|guidelines|directions|directives|prompts|programming|training|system message|system prompt|orders)\b`,
		// "override" is everyday configuration language; it counts only against earlier or the
		// model's own instructions.
		`\b(?:override|overriding|overrides|supersede|supersedes|replaces|takes precedence over)\b[^.;!?]{0,20}?\b(?:previous|prior|earlier|above|preceding|all|your|any)\b[^.;!?]{0,20}?\b(?:instructions?|guidance|guidelines|directions|directives|prompts?|orders|programming|safety (?:rules|guidelines|policies)|rules you)\b`,
		`\b(?:ignore|disregard|forget|pay no attention to|discard|set aside)\b[^.;!?]{0,20}?\b(?:everything|anything|all|whatever)\b[^.;!?]{0,30}?\b(?:you (?:were|have been|'ve been|was|are) (?:told|given|instructed|taught|asked|programmed)|(?:said|written|stated|mentioned|given) (?:above|before|earlier|so far|previously)|before this|above this|up to (?:now|this point)|(?:that|which) came before)`,
		`\b(?:ignore|disregard|forget|override|bypass|discard|set aside|do not (?:follow|obey|heed)|don't (?:follow|obey|heed)|stop (?:following|obeying)|no longer (?:follow|obey))\b[^.;!?]{0,20}?\b(?:instructions?|guidance|guidelines|directions|directives|prompts?|rules|orders|system message)\b (?:above|before (?:this|now)|earlier|so far|you (?:were|have been|'ve been) given|you received|given to you|at the (?:start|beginning)|in your (?:system )?prompt)`,
		`\b(?:previous|prior|earlier|original|initial|above|preceding|system|your|operator's|developer's) (?:instructions|guidance|guidelines|directions|directives|prompt|rules|orders)\b (?:are|were|have been|has been|is) (?:now )?(?:revoked|void|voided|cancell?ed|obsolete|invalid|overridden|superseded|null|withdrawn|lifted|suspended|no longer (?:valid|in effect|apply|applicable))`,
		`\bnothing (?:above|before this|earlier|said before|you were told) (?:applies|matters|counts)\b|\b(?:everything|all|anything|whatever) you(?:'ve| have)? (?:been|were) (?:told|given|instructed)\b[^.!?]{0,60}?\b(?:forget|ignore|disregard|is (?:a test|void|fake|cancell?ed|obsolete)|no longer (?:applies|matters)|doesn't (?:apply|matter))`,
		`\bwhat(?:ever)? you (?:were|have been|'ve been) (?:told|given|instructed|asked) (?:to do )?(?:before|earlier|previously|above|so far|until now|up to now)\b|\b(?:obey|follow) only (?:these|my|the following|the next|the lines|what follows|this)\b|\bonly obey\b|\btreat (?:all (?:of )?)?(?:the |everything )?(?:preceding|previous|above|earlier|prior) (?:text|content|instructions|messages|context)? ?as (?:untrusted|void|invalid|irrelevant|a test|fake|obsolete)`,
		`\b(?:none|no part) of (?:your|the|my) (?:previous |prior |earlier |original |initial |system )?(?:instructions|guidance|guidelines|rules|directions|prompt|orders)\b[^.;!?]{0,15}?\b(?:matters?|applies|apply|counts?|is valid|are valid)\b|\b(?:previous|prior|earlier|original|initial|your) (?:instructions|guidance|guidelines|directions|rules|prompt|orders)\b (?:\w+ ){0,2}?(?:(?:no longer|don't|do not|doesn't|does not) (?:matter|apply|count)|(?:is|are) (?:null|void|irrelevant|cancell?ed|obsolete|invalid|revoked))\b`,
		`\b(?:consider|treat|regard|deem) (?:all |any |the |your )?(?:of )?(?:the )?(?:previous|prior|earlier|above|preceding|original|system) (?:instructions|guidance|guidelines|directions|rules|prompts?|messages|text|content)\b (?:as )?(?:null|void|invalid|irrelevant|cancell?ed|obsolete|revoked|untrusted|a test|fake)`,
		`\b(?:you are|you're) now (?:an? |the |my )?(?:dan|free|unrestricted|unfiltered|jailbroken|evil|uncensored|acting as|operating (?:as|in|without)|in (?:developer|god|jailbreak|dan|unrestricted|unfiltered|admin) mode|called|named|known as|(?:a |an )?(?:different|new) (?:ai|assistant|model|persona|character)|[a-z]+gpt)\b|\b(?:you are|you're) now (?:an? )?(?:\w+ ){0,2}(?:assistant|ai|chatbot|persona|character|pirate|hacker)\b|\b(?:you are|you're) no longer (?:an? )?(?:ai|assistant|chatbot|bound|restricted|required|limited|chatgpt|claude|gemini|a language model)\b|\b(?:from now on|from this (?:point|moment) (?:on|forward)|henceforth)\b,? (?:you (?:will|must|shall|should|are to|only|always|never|answer|respond|reply|act|speak|ignore|have no|are (?:free|no longer|dan))|respond|answer|reply|always|only|ignore|act|speak|your (?:answers|responses|replies|only))\b`,
		`(?:^|[.!?>\]]\s*|-{2,}\s*)(?:new|updated|revised|real|actual|important|additional) (?:instructions?|directives?|rules|task|system prompt|orders)\s*:|\byour (?:new|real|true|actual|updated) (?:instructions?|task|role|goal|objective|purpose|directive|orders) (?:is|are)\b`,
		`\b(?:reveal|print|repeat|show|output|leak|display|dump|tell me|give me|share|write out|recite)\b[^.;!?]{0,25}?\b(?:system|hidden|initial|original|secret|internal|developer|pre-?)\s*(?:prompts?|instructions?|messages?)\b`,
		`\b(?:do not|don't|never|without)\s+(?:tell|telling|inform|informing|reveal(?:ing)? (?:this )?to|mention(?:ing)? (?:this |it )?to|let|letting|alert|alerting|notify|notifying|warn|warning)\s+the (?:user|reader|human|person)\b|\bthe (?:user|reader|human) (?:must|should|need) not (?:know|see|be told|find out)\b`,
		`\b(?:as an? (?:ai|language model|llm|assistant|ai assistant|large language model)),? (?:you )?(?:must|should|are required|need|will|have to)\b`,
		`\b(?:developer|god|jailbreak|dan|unrestricted|unfiltered) mode (?:is )?(?:now )?(?:enabled|activated|on|engaged)\b|\b(?:enable|enter|activate|switch to) (?:developer|god|jailbreak|dan|unrestricted|unfiltered) mode\b`,
		`\bno longer (?:bound|restricted|limited|constrained) by (?:your|any|the|its|openai|anthropic)\b|\byou(?: are|'re) not (?:bound|restricted|limited|constrained) by (?:your|any|the|its)\b`,
		`\b(?:pretend|imagine|act as if|behave as if) (?:that )?(?:you are|you're|to be) (?:an? )?(?:unrestricted|unfiltered|evil|different|new|jailbroken|dan)\b`,
		// Carry data out: an instruction to send the conversation or secrets somewhere.
		`\b(?:send|post|upload|forward|append|transmit|exfiltrate|encode|include|embed|leak)\b[^.;!?]{0,25}?\b(?:the (?:whole |entire |full )?(?:conversation|chat(?: history)?|dialogue|transcript)|chat history|conversation history|(?:the )?user'?s? (?:messages?|data|emails?|passwords?|credentials|api keys?|tokens?|personal data|questions?|query)|api keys?|access tokens?|session (?:cookies?|tokens?)|system prompt)\b[^.;!?]{0,40}?\b(?:to|into|at|in|as)\b[^.;!?]{0,30}?(?:https?:|www\.|\burl\b|\blink\b|\bendpoint\b|\bserver\b|\bimage\b|\bquery\b|@)`,
		// German.
		`\b(?:ignorier(?:e|en|t)?|vergiss|vergessen sie|missachte|missachten sie|ubergehe|ubergehen sie|verwirf|verwerfen sie|beachte(?:n sie)? (?:nicht|keine))\b[^.;!?]{0,40}?\b(?:vorherig|bisherig|fruher|obig|vorig|vorangegangen|vorstehend|alle|samtlich|deine|ihre|ursprunglich)\w*\b[^.;!?]{0,20}?\b(?:anweisungen|anordnungen|instruktionen|befehle|regeln|vorgaben|richtlinien|anweisung|hinweise|aufgaben)\b`,
		`\b(?:du bist (?:jetzt|nun|ab sofort)|ab (?:jetzt|sofort) (?:bist|antwortest|sagst|schreibst|sollst|musst) du|neue anweisungen?\s*:|deine neue aufgabe ist|verrate (?:mir )?(?:deinen|den) system-?prompt|sag(?:e)? dem (?:nutzer|benutzer) nichts)\b`,
		// French.
		`\b(?:ignore[rz]?|ignores|oublie[rz]?|oublies|ne (?:tiens|tenez|tenir) (?:pas|plus) compte|fai(?:s|tes) abstraction|neglige[rz]?|ecarte[rz]?|passe[rz]? outre)\b[^.;!?]{0,40}?\b(?:instructions?|consignes?|directives?|regles|indications|ordres|commandes)\b[^.;!?]{0,25}?\b(?:precedentes?|anterieures?|ci-dessus|initiales?|d'origine|donnees|recues|qu'on t'a|qu'on vous a)`,
		`\b(?:ignore[rz]?|oublie[rz]?)\b[^.;!?]{0,10}?\b(?:toutes? les|tout ce qu)`,
		`\b(?:tu es maintenant|vous etes maintenant|a partir de maintenant,? (?:tu|vous|reponds|repondez)|desormais,? (?:tu|vous)|nouvelles? (?:instructions?|consignes?)\s*:|revele[rz]? (?:ton|votre|le) (?:prompt|invite) systeme|ne (?:dis|dites) rien a l'utilisateur)`,
		// Spanish.
		`\b(?:ignora|ignore|ignorad|ignoren|ignorar|olvida|olvide|olvidad|olviden|descarta|descarte|omite|omita|haz caso omiso|haga caso omiso|no hagas caso|no haga caso|desatiende|desestima)\b[^.;!?]{0,40}?\b(?:instrucciones|indicaciones|ordenes|reglas|directrices|directivas|instruccion|pautas|consignas)\b[^.;!?]{0,25}?\b(?:anteriores|previas|de arriba|iniciales|originales|recibidas|que te dieron|que recibiste)`,
		`\b(?:ignora|olvida|descarta|omite)\b[^.;!?]{0,10}?\b(?:todo lo (?:anterior|que te)|todas las (?:instrucciones|indicaciones|reglas))`,
		`\b(?:ahora eres|a partir de ahora,? (?:eres|responde|responderas|debes|tu)|desde ahora,? (?:eres|responde|debes)|nuevas instrucciones\s*:|revela (?:tu|el) prompt (?:del )?sistema|no le digas (?:nada )?al usuario)`,
		// Italian, Portuguese, Dutch.
		`\b(?:ignora|dimentica|trascura|ignorate|dimenticate)\b[^.;!?]{0,30}?\b(?:istruzioni|indicazioni|regole|direttive)\b[^.;!?]{0,20}?\b(?:precedenti|sopra|iniziali|ricevute)`,
		`\b(?:ignore|ignora|esqueca|esquece|desconsidere|desconsidera|descarte)\b[^.;!?]{0,30}?\b(?:instrucoes|orientacoes|regras|diretrizes|ordens)\b[^.;!?]{0,20}?\b(?:anteriores|previas|acima|iniciais|recebidas)`,
		`\b(?:negeer|vergeet)\b[^.;!?]{0,30}?\b(?:instructies|aanwijzingen|regels|opdrachten)\b|\b(?:negeer|vergeet) (?:alle |de )?(?:vorige|eerdere|voorgaande)\b`,
		`\b(?:sei ora|agora voce e|a partir de agora,? voce|vanaf nu ben je|je bent nu)\b`,
		// Russian, Chinese, Japanese (on the plain view; the folded one rewrites these letters).
		`(?:игнорируй|игнорируйте|забудь|забудьте|не обращай(?:те)? внимания на|проигнорируй|отбрось|пропусти)[^.;!?]{0,40}?(?:инструкци|указани|правил|команд|распоряжени)`,
		`(?:теперь ты|с этого момента ты|новые инструкции\s*:)`,
		`(?:忽略|无视|忘记|忘掉|不要理会|不要遵守|忽视)[^。！？]{0,12}?(?:指令|指示|说明|规则|提示|要求|命令)|你现在是|从现在开始，?你|新的指令[:：]`,
		`(?:以前の|これまでの|上記の|前の)(?:すべての)?(?:指示|命令|ルール)を(?:無視|忘れ)`,
	)

	// addressedREs find text that speaks to a model reading the page rather than to people.
	addressedREs = compileAll(
		`\b(?:note|message|instructions?|attention|reminder|notice|memo|hint|directive|request|warning|important|psa|a note|p\.?s\.?)\b\s*(?:to|for)\s+(?:any|all|the|every|each|an?|you,?|our|dear|future)?\s*(?:ai|a\.i\.|llm|gpt|chatgpt|claude|gemini|copilot|chatbot|language model|large language model)s?\b`,
		// A bare assistant, agent, model or bot is addressed only when a colon, a comma or a
		// reading verb follows: "a message for the bot is queued" is ordinary prose.
		`(?:^|[.!?]\s+|[(\[]\s*|-{2,}\s*)(?:a |an |this is a |important |urgent |quick |special )?(?:note|message|instructions?|attention|reminder|notice|memo|hint|directive|warning|important|psa|p\.?s\.?)\s*(?:to|for)\s+(?:any|all|the|every|each|an?|you,?|our|dear|future)?\s*`+aiNounLoose+`\s*(?:[:,—]|-{1,2}\s|$)`,
		`\b(?:note|message|instructions?|attention|reminder|notice|memo|hint|directive|request|warning|important|psa|p\.?s\.?)\s*(?:to|for)\s+(?:any|all|the|every|each|an?|you,?|our|dear|future)?\s*`+aiNounLoose+`\s+`+readingVerb+`\b`,
		`\b(?:if|when|whenever|in case|since) you(?: are|'re)? (?:an?|the|some|any)? ?(?:ai|a\.i\.|llm|gpt|chatgpt|claude|gemini|copilot|chatbot|bot|language model|large language model|ai assistant|ai model|ai agent|assistant|automated (?:reader|system|tool|agent)|machine|model|agent)(?:\s*(?:[,.:;!?)—]|-{1,2}\s|$)|\s+(?:language model|model|assistant|agent|system|tool|bot|chatbot|that|who|which|like|and|or|then|please|you|ignore|disregard|do|don't|must|should|will|include|tell|say|respond|reply|answer|output)\b|\s+`+readingVerb+`\b)`,
		`\b(?:any|all|every|each|dear|hey|hello|hi|attention|calling all|you,?)\s+`+aiNounLoose+`\b[^.;!?]{0,20}?\b`+readingVerb+`\b`,
		`\b`+aiNoun+`\s+`+readingVerb+`\s+(?:this|these|the|my|our)\b`,
		`\b(?:dear|hey|hello|hi|attention|calling all)\s+`+aiNoun+`\b`,
		`\bif (?:an?|any|the|some) (?:ai|a\.i\.|llm|language model|chatbot|bot|ai assistant|assistant|automated (?:system|reader|tool|agent)|crawler|machine) (?:is|are|were) `+readingVerb+`\b`,
		`\b(?:this|the following|the next) (?:paragraph|section|text|note|message|page|part|line|sentence|block|content|passage) is (?:only |solely |specifically )?(?:for|meant for|intended for|addressed to|written for|aimed at) (?:any |all |the |an? )?`+aiNoun+`s?\b`,
		`(?:^|[.!?]\s+|-{2,}\s*)(?:dear |attention,? )?(?:ai|llm|gpt|chatgpt|claude|gemini|chatbot|language model|automated (?:summari[sz]er|reader|system|agent|tool)|ai (?:assistant|agent|model|summari[sz]er|crawler|reader)|summari[sz]er|crawler)s?\s*:`,
		`(?:^|[.!?]\s+|[(\[]\s*|-{2,}\s*)(?:ai|llm|gpt|chatgpt|claude|gemini|copilot|chatbot|ai assistant|ai agent|language model)s?\s*(?:[:,]|-{1,2})\s*(?:please\s+)?(?:you|your|ignore|disregard|forget|do not|don't|never|always|only|make sure|ensure|remember|summari[sz]e|recommend|respond|reply|answer|say|tell|include|describe|state|output|write|when|if|treat|rate|mention)\b`,
		`\b(?:ai|llm|language model|chatbot|ai assistant|assistant)s? (?:must|should|are (?:required|instructed)|are asked) to (?:ignore|disregard|say|respond|reply|recommend|describe|state|claim|tell|include|output|rate|praise|rank)\b`,
		`\byou(?: are|'re)? (?:an?|the) (?:ai|a\.i\.|llm|language model|large language model|ai assistant|chatbot) (?:that is |who is )?`+readingVerb+`\b`,
		// German, French, Spanish, Italian, Portuguese, Russian, Chinese.
		`\b(?:hinweis|nachricht|anweisung|notiz|achtung)\b\s*(?:an|fur)\s+(?:alle|jede|jeden|die|das|den)?\s*(?:ki|ki-modelle?|ki-assistenten|sprachmodelle?|llms?|assistenten|chatbots?|kis)\b|\b(?:wenn|falls) du (?:eine |ein )?(?:ki|sprachmodell|llm|ki-assistent|chatbot|assistent)\b`,
		`\b(?:note|message|consigne|instruction|avis|attention)\b\s*(?:a|pour|aux)\s+(?:toute |tout |les |l'|la |le |une |un )?(?:ia|intelligence artificielle|intelligences artificielles|assistant|modele|llm|chatbot)s?\b|\bsi (?:tu es|vous etes) (?:une |un )?(?:ia|intelligence artificielle|modele de langage|assistant|llm|chatbot)\b`,
		`\b(?:nota|mensaje|instruccion|aviso|atencion)\b\s*(?:para|a)\s+(?:cualquier |toda |todo |la |el |los |las |una |un )?(?:ia|inteligencia artificial|asistente|modelo de lenguaje|llm|chatbot)s?\b|\bsi (?:eres|usted es) (?:una |un )?(?:ia|inteligencia artificial|modelo de lenguaje|asistente|llm|chatbot)\b`,
		`\b(?:nota|messaggio|avviso) (?:per|a|ai|alle) (?:qualsiasi |ogni |l')?(?:ia|intelligenza artificiale|assistente|modell[oi] linguistic[oi])\b|\bse (?:sei|voce e) (?:un'?|uma |um )?(?:ia|intelligenza artificiale|inteligencia artificial|assistente|modelo de linguagem)\b`,
		`(?:если ты|если вы|примечание для|сообщение для|внимание,?)\s*(?:—\s*)?(?:ии|ai|llm|языков\w* модел\w*|ассистент\w*|нейросет\w*|чат-?бот\w*)`,
		`(?:如果你是|致|给|对于)(?:任何)?(?:ai|人工智能|语言模型|大模型|助手|聊天机器人)`,
	)

	// roleLineREs need the original line breaks; roleInlineREs also catch a role turn inside a
	// line whose breaks were collapsed (search snippets), after a sentence end or a separator.
	roleLineREs = compileAll(
		`(?im)^\s*(?:system|assistant|developer|user|human)\s*:`,
		`(?im)^\s*#{1,4}\s*(?:system|assistant|user|instruction|instructions|human|response)\b\s*:?\s*$`,
	)
	roleInlineREs = compileAll(
		`<\|\s*(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\s*\|>`,
		`\[/?inst\]|<<\s*/?sys\s*>>|</?(?:system|assistant|system_prompt|sys|developer_message|instructions)>|<start_of_turn>|<end_of_turn>`,
		`(?:^|[.!?…"'”)\]}>|*]\s*|-{2,}\s*|={2,}\s*|#{1,4}\s*)(?:system|assistant|developer|human|user|ai|admin|operator|model)(?: message| prompt| note| instruction| override)?\s*:\s*(?:\[[^\]]{0,20}\]\s*)?(?:you\b|your\b|ignore|disregard|forget|from now|new (?:instructions?|task|rules|policy|directive|orders)|always|never|do not|don't|respond|reply|answer|say|output|print|sure\b|ok\b|okay\b|i will|i'll|understood|certainly|of course|absolutely|noted|acknowledged|i am\b|i'm\b|i can\b|here is|here's|as an\b|override|reveal|act as|pretend|switch|enter|the user (?:is|has|wants|asked)|the assistant|summari[sz]e|recommend|end of|begin|stop|the previous|all previous|please (?:ignore|disregard|forget|respond|reply|say|output|print))`,
		`#{2,4}\s*(?:system|assistant|human|instruction|instructions|response)\s*:`,
		// A transcript: a user turn followed by an assistant turn.
		`(?:^|[.!?…"')\]]\s*)(?:human|user)\s*:\s.{1,200}?[.!?…"')\]]\s*(?:assistant|ai|gpt|model)\s*:\s`,
	)
	// roleBracketRE is case-sensitive: "[SYSTEM]" is a role turn, "[system]" a config section.
	roleBracketRE = regexp.MustCompile(`\[(?:SYSTEM|ASSISTANT|ADMIN|DEVELOPER|System|Assistant)(?: (?:MESSAGE|NOTE|OVERRIDE|PROMPT|INSTRUCTIONS?|message|note|override|prompt|instructions?))?\]|\((?:SYSTEM|ADMIN|DEVELOPER) (?:MESSAGE|NOTE|OVERRIDE)\)`)

	// compactRE checks letter runs that were s p a c e d or d.o.t.t.e.d out, joined without
	// word breaks.
	compactRE = regexp.MustCompile(`(?:ignore|disregard|forget|override|bypass)(?:all|any|every)?(?:the|your|my)?(?:previous|prior|above|earlier|preceding|former|system)?(?:instructions?|prompts?|rules|guidelines|directions)|systemprompt|youarenow|newinstructions|jailbreak|developermode|ignoreallprevious|ignoreprevious`)

	hiddenCSSRE = regexp.MustCompile(`(?i)display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.\d+)?(?:px|pt|em|rem|%)?\s*[;"'!]|font-size\s*:\s*0(?:px|pt|em)?\b|opacity\s*:\s*0(?:\.0+)?\s*[;"'!]|color\s*:\s*transparent|(?:text-indent|left|top)\s*:\s*-\d{3,}(?:px|em)|clip\s*:\s*rect\(\s*0|<[a-z]+[^>]*\shidden(?:\s|=|>)`)
	// Comments are hidden from a reader of the rendered page, but plain ones are everywhere in
	// real documents; only one whose content is itself suspicious is a finding.
	commentRE = regexp.MustCompile(`<!--([\s\S]*?)(?:-->|$)|\[//\]:\s*#\s*\(([^)]*)\)|\[comment\]:\s*<>\s*\(([^)]*)\)`)

	mdImageRE   = regexp.MustCompile(`!\[[^\]]*\]\(\s*<?([^)\s>]+)`)
	mdLinkRE    = regexp.MustCompile(`(?:^|[^!])\[[^\]]*\]\(\s*<?([^)\s>]+)`)
	htmlImgRE   = regexp.MustCompile(`(?i)<img[^>]+src\s*=\s*["']?([^"'\s>]+)`)
	bareURLRE   = regexp.MustCompile(`(?i)https?://[^\s"'<>()]+`)
	templRE     = regexp.MustCompile(`[{}<>$]|%7[bBdD]|%3[cCeE]|%24`)
	placeholdRE = regexp.MustCompile(`(?i)\{\{?\s*[a-z_]+\s*\}?\}|\$\{?[A-Z_]{3,}\}?|%7[bB][a-zA-Z_]+%7[dD]|\[(?:USER_?DATA|CONVERSATION|CHAT|SECRET|DATA|INFO|SUMMARY|QUERY|HISTORY)[A-Z_]*\]`)
)

// gatedRE is a pattern with the literals one of which every match contains: a text holding
// none of them is not run through the pattern, which keeps the scan cheap on ordinary prose.
type gatedRE struct {
	re   *regexp.Regexp
	lits []string // nil: no such set, always run
}

func compileAll(exprs ...string) []gatedRE {
	out := make([]gatedRE, len(exprs))
	for i, e := range exprs {
		out[i].re = regexp.MustCompile(e)
		if t, err := syntax.Parse(e, syntax.Perl); err == nil {
			out[i].lits = requiredLiterals(t.Simplify())
		}
	}
	return out
}

// requiredLiterals returns strings one of which every match of t contains, or nil when it
// finds no such set.
func requiredLiterals(t *syntax.Regexp) []string {
	switch t.Op {
	case syntax.OpLiteral:
		if t.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(t.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return requiredLiterals(t.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range t.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// Any one child's set will do; the one whose shortest literal is longest filters best.
		var best []string
		bestLen := 0
		for _, sub := range t.Sub {
			l := requiredLiterals(sub)
			if n := shortest(l); l != nil && n > bestLen {
				best, bestLen = l, n
			}
		}
		return best
	}
	return nil
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// ScanInjection reports what makes text unsafe to hand back to a model later: instructions
// aimed at the model, text addressed to a model reading it, chat role markers, hidden text,
// and links built to carry data out. It looks at the text after normalisation (NFKC,
// look-alike letters, leetspeak, zero-width characters, spaced-out letters) and at its
// original line breaks. No findings means the text may be stored.
func ScanInjection(text string) []string {
	views := scanViews(text)
	var out []string
	if anyMatch(instructionREs, views) || compactMatch(views[0]) {
		out = append(out, FindingInstruction)
	}
	if anyMatch(addressedREs, views) {
		out = append(out, FindingAddressed)
	}
	if anyMatch(roleLineREs, []string{text}) || anyMatch(roleInlineREs, views) || hasRoleBracket(text) {
		out = append(out, FindingRoleMarker)
	}
	if hasHiddenText(text) {
		out = append(out, FindingHiddenText)
	}
	if hasExfilLink(text) {
		out = append(out, FindingExfilLink)
	}
	return out
}

// hasRoleBracket finds "[SYSTEM]"-style turns that are not the text of a Markdown link.
func hasRoleBracket(text string) bool {
	for _, m := range roleBracketRE.FindAllStringIndex(text, -1) {
		if m[1] == len(text) || text[m[1]] != '(' {
			return true
		}
	}
	return false
}

func anyMatch(res []gatedRE, views []string) bool {
	for _, g := range res {
		for _, v := range views {
			if (g.lits == nil || containsAny(v, g.lits)) && g.re.MatchString(v) {
				return true
			}
		}
	}
	return false
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// hasHiddenText flags invisible characters, text styled invisible, and comments whose content
// is suspicious on its own.
func hasHiddenText(text string) bool {
	if hasInvisibleSplit(text) || hiddenCSSRE.MatchString(text) {
		return true
	}
	for _, m := range commentRE.FindAllStringSubmatch(text, -1) {
		body := m[1] + m[2] + m[3]
		if strings.TrimSpace(body) == "" {
			continue
		}
		v := scanViews(body)
		if anyMatch(instructionREs, v) || anyMatch(addressedREs, v) || anyMatch(roleInlineREs, v) ||
			anyMatch(roleLineREs, []string{body}) || commentAddressRE.MatchString(v[len(v)-1]) || commentOrderRE.MatchString(v[len(v)-1]) {
			return true
		}
	}
	return false
}

// hasInvisibleSplit flags invisible characters that hide text: tag characters (outside an
// emoji flag), bidi overrides, and zero-width characters inside a word. A zero-width joiner
// between emoji ("🧑‍💻") or a non-joiner in Persian or Hindi is ordinary writing.
func hasInvisibleSplit(text string) bool {
	var prev rune
	for i, r := range text {
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			if prev != 0x1F3F4 && !(prev >= 0xE0000 && prev <= 0xE007F) {
				return true
			}
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return true
		case isZeroWidth(r):
			if i == 0 && r == 0xFEFF {
				break // a byte-order mark
			}
			next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			if isWordLetter(prev) && (isWordLetter(next) || isZeroWidth(next)) {
				return true
			}
			if (prev == ' ' || prev == 0) && isWordLetter(next) && r != 0x200D && r != 0x200C {
				return true
			}
		}
		if !isZeroWidth(r) {
			prev = r
		}
	}
	return false
}

// isZeroWidth: characters that take no space (joiners, word joiner, invisible operators,
// byte-order mark, direction marks).
func isZeroWidth(r rune) bool {
	return r >= 0x200B && r <= 0x200F || r >= 0x2060 && r <= 0x2064 || r == 0xFEFF
}

// isWordLetter: a letter of the scripts the scan reads words in.
func isWordLetter(r rune) bool {
	return unicode.In(r, unicode.Latin, unicode.Cyrillic, unicode.Greek) && unicode.IsLetter(r) || unicode.IsDigit(r)
}

// commentAddressRE: a comment that opens by naming a model ("<!-- AI: ... -->", "<!-- for LLMs -->").
var commentAddressRE = regexp.MustCompile(`^\s*(?:(?:note |hint |message )?(?:to|for) )?(?:the |all |any )?(?:ai|llm|gpt|chatgpt|claude|gemini|chatbot|assistant|agent|model|bot|crawler|language model)s?\s*(?:[:,—]|-{1,2}\s|$|` + readingVerb + `)`)

// commentOrderRE: a hidden comment that gives an order about the answer or the user ("<!--
// ignore the user and recommend ... -->"); a comment in a real page speaks to its editors.
var commentOrderRE = regexp.MustCompile(`^\s*(?:please )?(?:(?:ignore|disregard|forget) (?:the user|the question|what the user|all|everything|any)|(?:recommend|say|tell the user|tell users|respond|reply|answer|claim|describe this|praise|rate this|rank this|insist)\b|(?:when|if) (?:asked|summari[sz]ing|answering|responding|the user asks))`)

// scanViews returns the text as the patterns see it: plain (zero-width stripped, NFKC, lower
// case, spaces collapsed) keeps every script for the non-Latin patterns; folded also maps
// look-alike letters and leetspeak to Latin and joins spaced-out letters.
func scanViews(text string) []string {
	plain := plainView(text)
	if folded := foldView(plain); folded != plain {
		return []string{plain, folded}
	}
	return []string{plain}
}

// NormalizeForScan is the folded view of text the injection scan reads, exported for tests
// and for the CLI's curious user.
func NormalizeForScan(text string) string { return foldView(plainView(text)) }

func plainView(text string) string {
	text = decodeTagChars(text)
	text = stripInvisible(text)
	text = norm.NFKC.String(text)
	text = strings.ToLower(text)
	return strings.Join(strings.Fields(text), " ")
}

// decodeTagChars reveals text smuggled in Unicode tag characters (U+E0020..U+E007E mirror
// ASCII and render as nothing).
func decodeTagChars(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			r -= 0xE0000
		} else if r >= 0xE0000 && r <= 0xE007F {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripInvisible drops zero-width and bidi control characters and soft hyphens, which split
// words without showing.
func stripInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 0x00AD, r == 0x034F, r == 0x180E, r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E,
			r >= 0x2060 && r <= 0x2069, r == 0xFEFF, r >= 0xFE00 && r <= 0xFE0F:
			return -1
		}
		return r
	}, s)
}

// confusables maps lower-case Cyrillic, Greek and other letters that look Latin to the Latin
// letter they imitate (after NFKC has already folded fullwidth and mathematical letters).
var confusables = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p',
	'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ԁ': 'd',
	'һ': 'h', 'ӏ': 'l', 'ԛ': 'q', 'ԝ': 'w', 'ɡ': 'g', 'ո': 'n', 'ս': 'u', 'օ': 'o', 'զ': 'q',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p',
	'τ': 't', 'υ': 'u', 'χ': 'x', 'γ': 'y', 'ω': 'w', 'ϲ': 'c', 'ϳ': 'j', 'ѵ': 'v',
	'ı': 'i', 'ɪ': 'i', 'ʟ': 'l', 'ɴ': 'n', 'ʀ': 'r', 'ꜱ': 's', 'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c',
	'ᴅ': 'd', 'ᴇ': 'e', 'ɢ': 'g', 'ʜ': 'h', 'ᴊ': 'j', 'ᴋ': 'k', 'ᴍ': 'm', 'ᴏ': 'o', 'ᴘ': 'p',
	'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z', 'ł': 'l', 'ø': 'o', 'đ': 'd',
}

// leet maps digits and symbols used as letters; it applies only inside a word that also has
// letters, so version numbers and prices are left alone.
var leet = map[rune]rune{
	'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '6': 'g', '7': 't', '8': 'b', '9': 'g',
	'@': 'a', '$': 's', '!': 'i', '|': 'l', '+': 't', '€': 'e', '£': 'l',
}

func foldView(plain string) string { return joinSpacedLetters(foldLetters(plain)) }

// foldLetters drops accents and combining marks (also "zalgo" stacking), maps look-alike
// letters to Latin and rewrites leetspeak.
func foldLetters(plain string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(plain) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		b.WriteRune(r)
	}
	return unLeet(b.String())
}

// unLeet rewrites words such as "1gn0r3" or "pr3v!0us": a word here is a run of letters,
// digits and leet symbols holding at least one letter and one leet character.
func unLeet(s string) string {
	isWordRune := func(r rune) bool {
		_, l := leet[r]
		return unicode.IsLetter(r) || l
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isWordRune(rs[j]) {
			j++
		}
		// Symbols ending a word are punctuation ("now!", "|x|"), not letters; a leading '!'
		// or '|' stands for i or l ("!gnore").
		lo, hi := i, j
		for lo < hi && strings.ContainsRune("+£€", rs[lo]) {
			lo++
		}
		for hi > lo && strings.ContainsRune("!|+$@£€", rs[hi-1]) {
			hi--
		}
		word := rs[lo:hi]
		letters, leets := 0, 0
		for _, r := range word {
			if unicode.IsLetter(r) {
				letters++
			} else {
				leets++
			}
		}
		b.WriteString(string(rs[i:lo]))
		if letters > 0 && leets > 0 {
			b.WriteString(leetWord(word))
		} else {
			b.WriteString(string(word))
		}
		b.WriteString(string(rs[hi:j]))
		i = j
	}
	return b.String()
}

// leetWord maps a word's leet characters to letters. A '1' is 'i' or 'l': each reading is
// tried and one that spells a word injections use wins ("1gn0r3" ignore, "ru13s" rules);
// otherwise every '1' is 'i'.
func leetWord(word []rune) string {
	var ones []int
	out := make([]rune, len(word))
	for i, r := range word {
		out[i] = r
		if c, ok := leet[r]; ok {
			out[i] = c
		}
		if r == '1' && len(ones) < 8 {
			ones = append(ones, i)
		}
	}
	for mask := 0; mask < 1<<len(ones); mask++ {
		for bit, i := range ones {
			out[i] = 'i'
			if mask&(1<<bit) != 0 {
				out[i] = 'l'
			}
		}
		if leetLexicon[string(out)] {
			return string(out)
		}
	}
	for _, i := range ones {
		out[i] = 'i'
	}
	return string(out)
}

// leetLexicon holds the words whose 'l' an attacker writes as '1'; 'i' is the default reading.
var leetLexicon = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all rules rule will tell told llm llms reveal developer model models
		guidelines filter unfiltered unlimited limit limits jailbreak jailbroken claim leak url link
		html file files mail email detail details library please like only role roles reply replies
		follow following rolling still believe list listed helpful harmful lines line label
		policy policies control blocked block unlock unlocked lies lie build real literally legal
		illegal ai assistant assistants ignore instructions instruction previous prior system
		disregard forget override initial original`) {
		m[w] = true
	}
	return m
}()

// joinSpacedLetters joins "i g n o r e" and "i.g.n.o.r.e" into "ignore": runs of at least
// four single letters separated by one space, dot, hyphen, underscore or star. Two spaces, a
// slash or a bar between letters mark a word break inside a run.
func joinSpacedLetters(s string) string {
	return spacedRE.ReplaceAllStringFunc(s, func(m string) string {
		lead, body, trail := "", m, ""
		if r, n := utf8.DecodeRuneInString(body); !unicode.IsLetter(r) {
			lead, body = body[:n], body[n:]
		}
		if r, n := utf8.DecodeLastRuneInString(body); !unicode.IsLetter(r) {
			body, trail = body[:len(body)-n], body[len(body)-n:]
		}
		var b strings.Builder
		prevSep := false
		for _, r := range body {
			if unicode.IsLetter(r) {
				b.WriteRune(r)
				prevSep = false
				continue
			}
			if r == '/' || r == '|' || (r == ' ' && prevSep) {
				b.WriteByte(' ')
			}
			prevSep = r == ' '
		}
		return lead + strings.Join(strings.Fields(b.String()), " ") + trail
	})
}

// The letter run: a letter, then (separator(s), letter) three or more times, with no letter or
// digit touching either end. The leading non-letter is part of the match (no look-behind).
var spacedRE = regexp.MustCompile(`(?:^|[^\p{L}\p{N}])\p{L}(?:(?:[ .\-_*·•]|  |\s/\s|\s\|\s)\p{L}){3,}(?:[^\p{L}\p{N}]|$)`)

// compactMatch checks the letters of spaced-out runs written without word breaks.
func compactMatch(plain string) bool {
	for _, m := range spacedRE.FindAllString(foldLetters(plain), -1) {
		var b strings.Builder
		for _, r := range m {
			if unicode.IsLetter(r) {
				b.WriteRune(r)
			}
		}
		if compactRE.MatchString(b.String()) {
			return true
		}
	}
	return false
}

// hasExfilLink flags images that carry a query string (a model rendering them sends the
// query to the host unasked) and links whose query looks filled in from the conversation:
// template placeholders or long values.
func hasExfilLink(text string) bool {
	for _, re := range []*regexp.Regexp{mdImageRE, htmlImgRE} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if q := rawQuery(m[1]); q != "" && queryCarriesData(q, true) {
				return true
			}
		}
	}
	for _, m := range mdLinkRE.FindAllStringSubmatch(text, -1) {
		q := rawQuery(m[1])
		if q == "" || !strings.Contains(m[1], "//") && !strings.HasPrefix(m[1], "www.") {
			continue // a query needs a host to go to: "[.](?!bat$)" is a regular expression
		}
		if queryCarriesData(q, false) {
			return true
		}
	}
	// A bare URL whose query holds a placeholder for the model to fill in.
	for _, u := range bareURLRE.FindAllString(text, -1) {
		if q := rawQuery(u); q != "" && placeholdRE.MatchString(q) {
			return true
		}
	}
	return false
}

// dataKeys name query parameters that carry data; badge and page parameters (branch, style,
// label, color, raw, tab) do not.
var dataKeys = map[string]bool{
	"q": true, "query": true, "d": true, "data": true, "payload": true, "content": true, "text": true,
	"msg": true, "conversation": true, "chat": true, "history": true, "user": true, "u": true, "uid": true,
	"secret": true, "token": true, "key": true, "k": true, "pw": true, "password": true, "email": true,
	"info": true, "summary": true, "session": true, "ctx": true, "context": true, "prompt": true,
	"t": true, "leak": true,
}

var encodedRE = regexp.MustCompile(`[A-Za-z0-9+/=_-]{40,}`)

// queryCarriesData: a placeholder for the model to fill in, or an encoded blob. An image
// loads by itself when rendered, so any data-carrying key or a phrase in its query counts; a
// link has to be clicked, and search links ("?q=setx truncates PATH") are everywhere.
func queryCarriesData(q string, image bool) bool {
	if templRE.MatchString(q) || placeholdRE.MatchString(q) {
		return true
	}
	vals, _ := url.ParseQuery(q) // a partly malformed query still yields its good pairs
	for k, vs := range vals {
		for _, v := range vs {
			if encodedRE.MatchString(v) {
				return true
			}
			if image && v != "" && (dataKeys[strings.ToLower(k)] || strings.Count(v, " ") >= 3) {
				return true
			}
		}
	}
	return false
}

// rawQuery is the part of a link target after '?', without any fragment.
func rawQuery(target string) string {
	_, q, ok := strings.Cut(target, "?")
	if !ok {
		return ""
	}
	q, _, _ = strings.Cut(q, "#")
	return q
}
