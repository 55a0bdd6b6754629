//! The generator's general English vocabulary: news nouns, adjectives and verbs with their forms.
//!
//! In: nothing. Out: [`nouns`], [`adjectives`], [`verbs`] (parsed once from the word lists
//! below, written for samecore). SpotSigs' default signature is an antecedent (`the`, `a`, `is`,
//! `has`, …) and the next non-stopword (workbench paper §3.1), so what decides how alike two
//! unrelated generated stories look is how many different words follow those antecedents. Real
//! news draws them from a vocabulary of many thousands; these lists (about 650 nouns, 440
//! adjectives and 350 verbs), the per-topic nouns of [`super::topics`] and the invented names
//! of [`super::names`] bring the generated text to the same order of cross-story overlap as the
//! real gold set (measured by [`super::calibrate`]; numbers in `sample_archives/README.md`).

use std::sync::LazyLock;

/// Nouns that fit a news story on any subject.
const NOUNS: &str = "
account accord acre action activist address adviser agency agenda agreement aid aide aircraft
airport allegation allowance alliance amendment analysis announcement anniversary apartment
appeal applicant application appointment approval archive area argument arrangement arrest
article assembly assessment asset assistant association attempt attorney audience audit author
authority average award backlog balance ballot bank banner bargain barrier basement battle beach
benefit bid bill billboard blaze block board boat bond booklet border branch breach bridge brief
broadcast brochure budget building bulletin bureau business cabinet cafe campaign campus canal
candidate capacity capital career cargo carrier case cash catalogue category cathedral ceiling
celebration cemetery census center ceremony chairman challenge chamber champion chapter charity
charter chart checkpoint chemical childhood choir circuit citizen claim clash classroom client
climate clinic coalition coast collapse colleague collection college column commission commitment
committee community company comparison compensation competition complaint compromise concern
concert conclusion condition conference conflict consensus consultant consumer contract
contractor contribution controversy convention conversion conviction corner corporation corridor
cost cottage council count county couple courier court courtyard coverage crackdown crane crash
creditor crew crisis critic crop crossing crowd cruise culvert curfew currency curriculum
customer cutback dam database deadline dealer debate debt decade decision declaration decline
deed defect deficit delay delegate delegation delivery demand demolition department deposit
deputy design detour developer development device diagnosis dialogue diploma director discount
discovery dispute distribution district document donation donor draft drainage drought
earthquake economy editor effort election electrician embargo emergency employee employer
encounter endorsement enquiry enrollment enterprise entrance episode equipment estate estimate
evacuation evaluation event eviction evidence examination excavation exception exchange
executive exemption exhibit expansion expedition expense experiment expert explosion export
exposure extension facility factory failure fair family farm feasibility feature federation fee
festival figure filing finding fine firm fixture fleet flood flyer forecast foundation fraction
framework franchise freight fund fundraiser gallery gap garage garden gathering generator gesture
grant greenhouse grievance guideline harbor harvest hazard headline hearing heritage highway
hospital hostel household housing hurdle incident income increase index industry inflation
initiative injury inquiry inspection inspector installment institute insurance intake interview
inventory investigation investment investor invoice island issue journalist judgment junction
jurisdiction kiosk laboratory landlord landmark landslide lane launch lawmaker lawsuit layoff lease
lecture ledger legacy legislation lender license limit liquidity loan lobby location lockout
logbook loophole lorry loss lot machinery magistrate mailbox majority mandate manifest manual
manufacturer marathon margin market meadow measure mechanic memo memorial merchant merger method
migration milestone minister minority mission moratorium mortgage motion motorway municipality
museum negotiation neighborhood network newsletter nominee notice novelty obligation observer
occupancy offer office official operator opponent option ordinance organizer orchard outage
outbreak outcome outlet overhaul overpass owner package panel parade parcel parish parliament
participant partnership passenger patent pavilion payment payroll penalty pension permit petition
pharmacy pipeline plaintiff platform playground plaza pledge plot police policy poll portfolio
position poster precinct premium preview price principal priority prison procedure proceeds
producer profit program project promotion proposal prosecutor prospect protest provider province
publication publisher purchase quarry quarter query questionnaire quota railway rally ranking rate
ratio reactor rebate receipt recession recommendation record recovery recruit referendum refinery
refund regulator rehearsal relief relocation renovation rent repair replacement report
representative reservoir resident resignation resolution resort respondent restoration
restriction retailer retreat revenue review revision reward ridge ritual rival road roadmap
roster route ruling runway salary sample sanction scandal schedule scheme scholarship sector
security seminar senate settlement shareholder shelter shift shipment shipyard shortage showcase
shuttle signal site sketch slope slump society software solution spending sponsor stadium staff
stake statement station statute stockpile strategy strike subsidy suburb summit supplier supply
surge surplus survey suspect suspension symposium tariff task taxpayer teacher tenant tender
terminal territory testimony textbook theater threat ticket timetable toll tournament tower trader
tradition tragedy trail transcript transfer transit treasury treaty trend trial tribunal trophy
truce trustee tuition tunnel turnout tutor unit upgrade utility vacancy valuation vendor venture
venue verdict veteran viaduct village violation visitor volunteer voucher wage warehouse warning
warrant waterfront website wetland wharf windfall witness workforce workshop yard youth zone
";

/// Adjectives.
const ADJECTIVES: &str = "
abrupt absent academic accurate active additional adequate adjacent administrative affordable
aggressive agricultural alleged alternative ambitious ample ancient angry annual anonymous
apparent architectural arid armed artificial ashen assertive audible automatic autumnal available
average awkward bare basic bitter blunt bold brief brisk broad brutal busy calm candid capable
careful casual cautious central ceremonial chaotic cheap chronic civic civil clear clever coastal
cold collective colorful comfortable commercial common compact competitive complex complicated
comprehensive concrete confident confidential consistent constant contemporary controversial
cooperative costly coveted critical crowded crucial cultural curious customary damaged daring
decisive deep defiant deliberate dense detailed different difficult digital diplomatic direct
disputed distant distinct diverse domestic dramatic dry durable dusty eager early eastern
economic effective efficient elderly electoral elegant eligible emergency emotional empty
encouraging energetic enormous entire environmental equal essential ethical everyday evident
exact excessive exclusive existing expensive experimental explicit extensive external extra
factual familiar famous federal fierce financial flat flexible fragile frank frequent fresh
frustrated full generous gentle genuine gradual grateful gray great gritty grueling handsome
harsh hasty healthy heavy hidden historic hollow honest hopeful hostile huge humble humid
identical immediate imminent impatient important impressive inadequate incomplete independent
industrial inexpensive informal initial innovative intense interim internal invisible isolated
joint judicial junior juvenile key lasting late lavish legal legendary legislative lengthy
limited liquid literary lively local lonely loyal lucky magnificent mandatory manual marginal
maritime massive mature medical medieval mild military minor mixed mobile moderate modest
monthly moral muddy municipal mutual narrow national natural nearby neat necessary negative
nervous neutral noisy nominal normal northern notable novel numerous obscure obvious occasional
odd offshore open operational optimistic ordinary organic original outdoor overdue painful
parallel partial passionate patient peaceful peculiar permanent persistent personal physical
plain pleasant polite popular portable positive practical precious premature preliminary
prestigious previous primary principal private probable productive professional profitable
prominent prompt proper proud provincial provisional public quiet radical rapid rare raw recent
regional regular relentless reliable reluctant remarkable remote renewable residential resilient
rigid robust rocky romantic rough routine rural rusty sacred scenic seasonal secondary secret
secure senior sensitive separate serious severe shallow sharp sheer silent simple sizable slight
slim slow smooth sober social solid southern spacious sparse special specific spectacular stable
stark steady steep sticky strategic strict striking strong structural stubborn subtle sudden
sufficient suitable sunny superb supportive surprising suspicious sustainable symbolic tactical
technical temporary tense thorough tidy tight timely tiny tough toxic traditional tranquil
transparent tremendous tricky tropical troubled typical unanimous uncertain unclear uneven
unexpected unfinished unpaid unpopular unprecedented unusual upbeat urban urgent useful vacant
vague valid valuable vast verbal vibrant vigorous visible vital vivid vocal volatile voluntary
vulnerable warm weekly western wet wide wild windy wooden worried worthy yearly young zealous
";

/// Verbs: a bare entry is regular (`approve` -> `approved`, `approving`); `base/past/participle`
/// gives irregular forms.
const VERBS: &str = "
accept accuse acknowledge acquire adapt address adjust admit adopt advise advocate affirm allocate
allow alter amend analyze announce anticipate appeal applaud appoint approve argue arrange assemble
assess assign assist assure attach attract audit authorize avoid back ban bolster boost borrow
calculate cancel caution celebrate challenge champion charge check cite claim clarify clean
close collect combine comment commission compare compensate compile complain complete comply
concede conclude condemn confirm consider consolidate construct consult contest continue
contribute convert convince correct count cover criticize cultivate curb damage debate decline
decrease defend delay deliver demand demolish deny deploy describe design detect determine
develop dismiss display dispute distribute document donate double downplay draft dredge
earn echo elect eliminate embrace emphasize employ enact encourage endorse endure enforce enlarge
ensure equip escalate establish estimate evaluate examine exceed exhibit expand explain explore
export extend favor file finance finish focus follow forecast/forecast/forecast form fund gather
guarantee halt handle harvest highlight host identify ignore illustrate implement import impose
improve include increase inform inherit initiate inspect install insure intend interview
introduce investigate invite issue join justify launch lease limit list lobby locate lower
maintain manage mark measure mention merge monitor mortgage negotiate nominate notice obtain
offer open operate oppose order organize outline overhaul oversee/oversaw/overseen own pause
permit persuade petition phase plant pledge postpone praise predict prepare present preserve
process produce project promise promote propose protect protest prove provide publish purchase
pursue question raise rank reach recall receive recommend reconsider record recover recruit
redesign reduce reform refuse register reject release relocate remain remove renew reopen
repair replace report request require rescue reserve reshape resolve respond restore restrict
resume retain retire return reveal review revise revive reward rule safeguard schedule
screen secure select settle shelve simplify solve sponsor stabilize stage strengthen study
submit suggest supervise supply support survey suspend sustain target test track trade train
transfer transform treat trim triple uncover undergo/underwent/undergone unveil update upgrade
uphold/upheld/upheld urge utilize validate verify visit voice volunteer vow wait warn weigh
welcome widen withdraw/withdrew/withdrawn witness worry yield begin/began/begun bring/brought/brought
build/built/built buy/bought/bought choose/chose/chosen draw/drew/drawn drive/drove/driven
find/found/found freeze/froze/frozen grow/grew/grown hold/held/held keep/kept/kept lead/led/led
lose/lost/lost meet/met/met rebuild/rebuilt/rebuilt seek/sought/sought sell/sold/sold
send/sent/sent spend/spent/spent strike/struck/struck take/took/taken tell/told/told
throw/threw/thrown win/won/won write/wrote/written
";

/// The few dozen nouns real news uses everywhere (a general-noun slot takes one of these now
/// and then, as Zipf's law has it; they give unrelated stories the small overlap real ones
/// have: "the first", "a year").
pub const COMMON_NOUNS: &[&str] = &[
    "year",
    "time",
    "week",
    "day",
    "month",
    "people",
    "way",
    "number",
    "part",
    "home",
    "plan",
    "city",
    "state",
    "group",
    "money",
    "work",
    "problem",
    "area",
    "family",
    "report",
    "end",
    "school",
    "government",
    "company",
    "change",
    "question",
    "result",
    "country",
    "team",
    "night",
];

/// The adjectives real news uses everywhere.
pub const COMMON_ADJECTIVES: &[&str] = &[
    "new", "first", "last", "local", "public", "former", "next", "recent", "big", "small",
    "second", "major", "high", "long", "young", "good", "old", "best", "early", "final",
];

/// The forms of one verb.
#[derive(Debug, Clone)]
pub struct Verb {
    /// "approve".
    pub base: String,
    /// "approved".
    pub past: String,
    /// "approved" (after has/have/had/been).
    pub participle: String,
    /// "approving".
    pub ing: String,
    /// "approves" (present tense, third person singular; headlines use it).
    pub present: String,
}

/// Verbs that double their last consonant ("ban" -> "banned").
const DOUBLED: &[&str] = &["ban", "trim", "admit", "submit", "transfer", "plan", "stop"];

fn regular(base: &str) -> Verb {
    let (past, ing) = if let Some(stem) = base.strip_suffix("ee") {
        (format!("{stem}eed"), format!("{stem}eeing"))
    } else if let Some(stem) = base.strip_suffix('e') {
        (format!("{stem}ed"), format!("{stem}ing"))
    } else if let Some(stem) = base.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        (format!("{stem}ied"), format!("{base}ing"))
    } else if DOUBLED.contains(&base) {
        let last = &base[base.len() - 1..];
        (format!("{base}{last}ed"), format!("{base}{last}ing"))
    } else {
        (format!("{base}ed"), format!("{base}ing"))
    };
    let present = if base.ends_with(['s', 'x', 'z']) || base.ends_with("sh") || base.ends_with("ch")
    {
        format!("{base}es")
    } else if let Some(stem) = base.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{base}s")
    };
    Verb {
        base: base.to_string(),
        participle: past.clone(),
        past,
        ing,
        present,
    }
}

fn parse_verb(entry: &str) -> Verb {
    let mut parts = entry.split('/');
    let base = parts.next().unwrap_or(entry);
    match (parts.next(), parts.next()) {
        (Some(past), Some(participle)) => {
            let mut v = regular(base);
            v.past = past.to_string();
            v.participle = participle.to_string();
            if let Some(stem) = base.strip_suffix('e')
                && !base.ends_with("ee")
            {
                v.ing = format!("{stem}ing");
            } else {
                v.ing = format!("{base}ing");
            }
            v
        }
        _ => regular(base),
    }
}

static NOUN_LIST: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| NOUNS.split_whitespace().collect());
static ADJECTIVE_LIST: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| ADJECTIVES.split_whitespace().collect());
static VERB_LIST: LazyLock<Vec<Verb>> =
    LazyLock::new(|| VERBS.split_whitespace().map(parse_verb).collect());

/// The general news nouns.
pub fn nouns() -> &'static [&'static str] {
    &NOUN_LIST
}

/// The adjectives.
pub fn adjectives() -> &'static [&'static str] {
    &ADJECTIVE_LIST
}

/// The verbs with their forms.
pub fn verbs() -> &'static [Verb] {
    &VERB_LIST
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_large_and_verbs_inflect() {
        assert!(nouns().len() > 600, "{}", nouns().len());
        assert!(adjectives().len() > 300, "{}", adjectives().len());
        assert!(verbs().len() > 280, "{}", verbs().len());
        let find = |b: &str| verbs().iter().find(|v| v.base == b).cloned();
        let v = find("approve").map(|v| (v.past, v.ing));
        assert_eq!(v, Some(("approved".into(), "approving".into())));
        let v = find("clarify").map(|v| (v.past, v.ing));
        assert_eq!(v, Some(("clarified".into(), "clarifying".into())));
        let v = find("ban").map(|v| (v.past, v.ing));
        assert_eq!(v, Some(("banned".into(), "banning".into())));
        let v = find("take").map(|v| (v.past, v.participle, v.ing));
        assert_eq!(v, Some(("took".into(), "taken".into(), "taking".into())));
        let v = find("guarantee").map(|v| (v.past, v.ing));
        assert_eq!(v, Some(("guaranteed".into(), "guaranteeing".into())));
    }
}
