//! The topics of invented news stories: for each, the section it runs in, its organisations,
//! roles and objects, and the headline, lead, body and quote templates its stories are written
//! from (see [`super::words`] for the slot syntax). All text was written for samecore.
//!
//! In: nothing. Out: the static [`TOPICS`] table read by [`super::prose`].

/// One news topic: the section it runs in and the vocabulary of its stories.
pub struct Topic {
    /// Section name shown in breadcrumbs and URLs.
    pub section: &'static str,
    /// Organisations such stories are about.
    pub orgs: &'static [&'static str],
    /// Roles of the people quoted.
    pub roles: &'static [&'static str],
    /// The object of the story.
    pub things: &'static [&'static str],
    /// Headline templates (a story uses one; syndicating sites may use another).
    pub headlines: &'static [&'static str],
    /// Opening paragraphs.
    pub leads: &'static [&'static str],
    /// Body sentences.
    pub body: &'static [&'static str],
    /// Quoted sentences.
    pub quotes: &'static [&'static str],
}

const LOCAL: Topic = Topic {
    section: "Local",
    orgs: &[
        "city council",
        "planning commission",
        "county board",
        "parks department",
        "water authority",
        "zoning board",
    ],
    roles: &[
        "council member",
        "mayor",
        "city manager",
        "planning director",
        "county commissioner",
        "neighborhood association president",
    ],
    things: &[
        "new public library",
        "downtown parking plan",
        "riverside walking trail",
        "community swimming pool",
        "property tax increase",
        "affordable housing project",
        "bus route change",
        "renovation of the old town hall",
    ],
    headlines: &[
        "{place} {org} approves {thing} after long debate",
        "{thing} wins backing of {place} {org}",
        "Vote clears way for {thing} in {place}",
        "{place} moves ahead with {thing} despite objections",
    ],
    leads: &[
        "The {place} {org} voted {n} to 3 on {weekday} night to approve the {thing}, ending months of debate over its cost and location.",
        "After a meeting that stretched past midnight, the {org} in {place} gave final approval to the {thing} on {weekday}.",
        "Plans for the {thing} in {place} cleared their last hurdle this week when the {org} signed off on a budget of {amount}.",
    ],
    body: &[
        "The {thing} had been proposed by {role} {person}, who argued that the town had waited long enough.",
        "Opponents of the plan, led by {role2} {person2}, said the money would be better spent on road repairs.",
        "The {org} received more than {count} written comments during the consultation period.",
        "Under the approved plan, construction could begin as early as next spring.",
        "{last} told the meeting that the project would be paid for without raising fees for residents.",
        "Several speakers raised concerns about traffic and noise near the proposed site.",
        "The vote followed a two-hour public hearing in the council chambers.",
        "A similar proposal was rejected by the {org} {n} years ago.",
        "The plan includes a review after the first year to measure its effect on the neighborhood.",
        "Staff estimated that the {thing} would cost about {amount} to complete.",
    ],
    quotes: &[
        "“This is something the people of {place} have asked for again and again,” {last} said.",
        "“We have listened to every concern that was raised,” said {person}, the {role}.",
        "“I am not against progress, but I am against spending money we do not have,” {last2} said.",
        "“It has been a long road, and I think we got it right in the end,” {last} told reporters.",
    ],
};

const WEATHER: Topic = Topic {
    section: "Weather",
    orgs: &[
        "National Weather Office",
        "county emergency service",
        "regional flood agency",
        "highway department",
        "power cooperative",
    ],
    roles: &[
        "forecaster",
        "emergency manager",
        "fire chief",
        "utility spokesperson",
        "sheriff",
    ],
    things: &[
        "winter storm",
        "flash flooding",
        "heat wave",
        "ice storm",
        "high winds",
        "heavy snowfall",
        "early frost",
    ],
    headlines: &[
        "{thing} leaves thousands without power in {place}",
        "{place} braces for {thing} as warnings are issued",
        "Clean-up begins after {thing} sweeps through {place}",
        "{thing} closes roads and schools across {place}",
    ],
    leads: &[
        "A {thing} swept across {place} on {weekday}, knocking out power to about {count} homes and closing several major roads.",
        "Residents of {place} were told to stay indoors on {weekday} as the {thing} reached its peak in the early afternoon.",
        "The {org} issued a warning for {place} late on {weekday} as the {thing} moved in faster than expected.",
    ],
    body: &[
        "Crews worked through the night to restore service, and by morning about {pct} percent of customers were back online.",
        "The {org} said conditions were expected to improve by the weekend.",
        "{role} {person} urged drivers to avoid unnecessary travel until the roads had been cleared.",
        "Several schools in the area announced closures for the rest of the week.",
        "No serious injuries had been reported by {weekday} evening, officials said.",
        "Shelters were opened at two community centers for residents who lost heat.",
        "It was the worst such event in {place} since records began, according to the {org}.",
        "Volunteers handed out water and blankets outside the town hall.",
        "Fallen trees blocked at least {n} streets in the older part of town.",
    ],
    quotes: &[
        "“We have not seen anything like this in a very long time,” said {person}, {a_role} with the {org}.",
        "“Please check on your neighbors, especially the elderly,” {last} said.",
        "“The next {n} hours are going to be difficult,” the {role} warned.",
        "“Our crews are doing everything they can,” said {person2}, {a_role2}.",
    ],
};

const BUSINESS: Topic = Topic {
    section: "Business",
    orgs: &[
        "Calder Industries",
        "Northgate Foods",
        "Bramwell Logistics",
        "Helix Components",
        "Fairmont Textiles",
        "Ridgeway Motors",
        "Solent Paper Company",
    ],
    roles: &[
        "chief executive",
        "plant manager",
        "union representative",
        "economic development director",
        "analyst",
        "spokesperson",
    ],
    things: &[
        "new distribution center",
        "factory expansion",
        "round of layoffs",
        "merger",
        "headquarters move",
        "hiring program",
        "plant closure",
    ],
    headlines: &[
        "{org} announces {thing} in {place}",
        "{thing} at {org} to bring changes to {place}",
        "{place} reacts as {org} confirms {thing}",
        "What the {org} {thing} means for {place}",
    ],
    leads: &[
        "{org} said on {weekday} that it plans a {thing} in {place}, a move that could affect about {count} jobs.",
        "The {thing} announced by {org} this week is the largest change to the company in a generation, executives said.",
        "Workers at {org} in {place} learned on {weekday} of the {thing}, which the company said was needed to stay competitive.",
    ],
    body: &[
        "The company expects the {thing} to be completed within {n} months.",
        "{role} {person} said the decision followed a long review of the company’s operations.",
        "Shares of the company rose {pct} percent in early trading after the announcement.",
        "Local officials said they had been in talks with the company for more than a year.",
        "The {thing} is expected to cost about {amount}, according to a company filing.",
        "{person2}, {a_role2}, said workers had been told little about the timing.",
        "The company employs about {count} people in the region.",
        "Economists said the move reflects wider changes in the industry.",
        "State officials offered tax credits worth {amount} to keep the company in {place}.",
    ],
    quotes: &[
        "“This is a difficult but necessary step for the future of the business,” {last} said.",
        "“Our people in {place} remain at the heart of what we do,” said {person}, the {role}.",
        "“We want answers, and we want them in writing,” {last2} told a gathering outside the gates.",
        "“It is good news for the region, if the promises are kept,” said {person2}, {a_role2}.",
    ],
};

const SCHOOLS: Topic = Topic {
    section: "Education",
    orgs: &[
        "school board",
        "teachers’ union",
        "parent-teacher association",
        "state education department",
        "community college",
    ],
    roles: &[
        "superintendent",
        "principal",
        "school board chair",
        "teacher",
        "parent",
        "student",
    ],
    things: &[
        "later start time",
        "new reading curriculum",
        "school budget",
        "four-day week",
        "cell phone ban",
        "free lunch program",
        "new high school building",
    ],
    headlines: &[
        "{place} {org} backs {thing}",
        "Parents split over {thing} in {place} schools",
        "{thing} to start next fall in {place}",
        "{place} schools weigh {thing}",
    ],
    leads: &[
        "The {place} {org} voted on {weekday} to adopt a {thing} for the coming school year, after months of debate among parents and teachers.",
        "Students in {place} will see a {thing} starting next fall, the {org} decided this week.",
        "A proposal for a {thing} drew a packed crowd to the {org} meeting in {place} on {weekday}.",
    ],
    body: &[
        "{role} {person} said the change was based on research from other districts.",
        "About {count} parents signed a petition asking the board to delay the decision.",
        "The district estimates the change will cost {amount} in its first year.",
        "Teachers will receive training over the summer, officials said.",
        "{person2}, {a_role2}, said the board had not explained how the plan would be measured.",
        "Test scores in the district have fallen by {pct} percent over the past five years.",
        "The board plans to survey families again at the end of the first semester.",
        "Bus schedules will also be adjusted to fit the new plan.",
    ],
    quotes: &[
        "“Our children deserve the best start we can give them,” said {person}, the {role}.",
        "“Nobody asked the teachers what they thought,” {last2} said.",
        "“We will keep listening and adjust if we need to,” {last} said after the vote.",
        "“My daughter is excited, but I still have questions,” said {person2}, {a_role2}.",
    ],
};

const HEALTH: Topic = Topic {
    section: "Health",
    orgs: &[
        "county health department",
        "St. Brigid’s Hospital",
        "Valley Medical Center",
        "regional clinic network",
        "state health board",
    ],
    roles: &[
        "doctor",
        "nurse",
        "health officer",
        "hospital administrator",
        "patient advocate",
    ],
    things: &[
        "new emergency wing",
        "flu vaccination drive",
        "maternity ward closure",
        "mental health hotline",
        "walk-in clinic",
        "measles outbreak",
    ],
    headlines: &[
        "{org} opens {thing} in {place}",
        "{thing} raises concern in {place}",
        "Officials respond to {thing} in {place}",
        "{place} residents urged to take note of {thing}",
    ],
    leads: &[
        "The {org} announced a {thing} for {place} on {weekday}, saying demand had grown faster than expected.",
        "Health officials in {place} are responding to a {thing} that has affected at least {count} people, the {org} said.",
        "A {thing} in {place} is drawing attention from the {org}, which held a briefing on {weekday}.",
    ],
    body: &[
        "{role} {person} said the first weeks would show whether more staff were needed.",
        "The project is funded by a grant of {amount} from the state.",
        "Officials advised residents to contact their doctor if they had any symptoms.",
        "Waiting times at the hospital have grown by {pct} percent over the past year.",
        "{person2}, {a_role2}, said rural patients still faced long drives for care.",
        "The {org} plans to publish weekly figures on its website.",
        "Staff will be hired from the region where possible, the administrator said.",
        "Free sessions will be held at the library every {weekday} through the end of the month.",
    ],
    quotes: &[
        "“Early care saves lives, and that is what this is about,” said {person}, {a_role}.",
        "“We are asking everyone to be patient and to be careful,” {last} said.",
        "“Families should not have to drive an hour to see a doctor,” {last2} said.",
        "“The numbers are encouraging, but it is too soon to relax,” the {role} said.",
    ],
};

const TRANSPORT: Topic = Topic {
    section: "Transport",
    orgs: &[
        "transit authority",
        "state roads agency",
        "regional rail company",
        "port commission",
        "airport board",
    ],
    roles: &[
        "transit director",
        "engineer",
        "commuter",
        "project manager",
        "bus driver",
    ],
    things: &[
        "bridge repair",
        "new light rail line",
        "fare increase",
        "highway widening",
        "ferry service",
        "bike lane network",
        "airport runway extension",
    ],
    headlines: &[
        "{thing} planned for {place}",
        "Commuters in {place} face delays as {thing} begins",
        "{org} unveils {thing} for {place}",
        "{thing} in {place} falls behind schedule",
    ],
    leads: &[
        "The {org} said on {weekday} that work on the {thing} in {place} will begin next month and last about {n} weeks.",
        "Commuters in {place} should expect delays as the {thing} gets under way, the {org} warned on {weekday}.",
        "The {thing} for {place}, first proposed years ago, is finally moving forward after the {org} approved {amount} in funding.",
    ],
    body: &[
        "{role} {person} said detours would be clearly marked.",
        "About {count} vehicles use the route on an average weekday.",
        "The project has already gone over budget by {pct} percent, according to documents seen by reporters.",
        "Night work is planned to limit the disruption during rush hour.",
        "{person2}, {a_role2}, said the delays had added almost an hour to some trips.",
        "The {org} will hold an information session at the library next {weekday}.",
        "Federal money will cover most of the cost, officials said.",
        "Once finished, the {thing} is expected to last at least forty years.",
    ],
    quotes: &[
        "“We know this is an inconvenience, and we thank people for their patience,” {last} said.",
        "“Every morning it is a gamble whether I will make it to work on time,” said {person2}, {a_role2}.",
        "“The work cannot wait any longer,” said {person}, the {role}.",
        "“When it is done, people will wonder how we managed without it,” {last} said.",
    ],
};

const COURTS: Topic = Topic {
    section: "Courts",
    orgs: &[
        "county court",
        "district attorney’s office",
        "state appeals court",
        "police department",
        "sheriff’s office",
    ],
    roles: &[
        "judge",
        "prosecutor",
        "defense lawyer",
        "police chief",
        "detective",
    ],
    things: &[
        "fraud trial",
        "burglary case",
        "lawsuit over the landfill",
        "embezzlement charge",
        "wrongful dismissal suit",
        "arson investigation",
    ],
    headlines: &[
        "Verdict reached in {place} {thing}",
        "{thing} in {place} takes a new turn",
        "Jury hears closing arguments in {thing}",
        "{org} files new motion in {place} {thing}",
    ],
    leads: &[
        "A jury in {place} reached a verdict on {weekday} in the {thing} that has drawn attention across the region.",
        "The {thing} in {place} took a new turn this week when the {org} filed documents asking for a delay.",
        "Closing arguments were heard on {weekday} in the {thing}, with both sides telling the jury the evidence was clear.",
    ],
    body: &[
        "{role} {person} told the court that the records showed a pattern over several years.",
        "The defense argued that the key witness could not be trusted.",
        "The case involves about {amount} in missing funds, prosecutors said.",
        "{person2}, the {role2}, asked for the trial to be moved to another county.",
        "Sentencing is scheduled for later this year.",
        "The jury deliberated for about {n} hours over two days.",
        "More than {count} documents were entered as evidence during the trial.",
        "Neither side would say whether an appeal was planned.",
    ],
    quotes: &[
        "“The facts in this case speak for themselves,” {last} told the jury.",
        "“My client has always maintained his innocence,” said {person2}, the {role2}.",
        "“Justice was done today,” said {person}, the {role}, outside the courthouse.",
        "“We respect the decision, but we do not agree with it,” {last2} said.",
    ],
};

const CULTURE: Topic = Topic {
    section: "Arts",
    orgs: &[
        "arts council",
        "historical society",
        "community theater",
        "city museum",
        "folk festival committee",
        "public library",
    ],
    roles: &[
        "director",
        "curator",
        "festival organizer",
        "artist",
        "volunteer",
    ],
    things: &[
        "summer music festival",
        "new mural",
        "exhibition of local photographs",
        "restored cinema",
        "harvest fair",
        "poetry prize",
        "open-air theater season",
    ],
    headlines: &[
        "{thing} returns to {place}",
        "{place} celebrates {thing}",
        "{org} brings {thing} to {place}",
        "Crowds turn out for {thing} in {place}",
    ],
    leads: &[
        "The {thing} returned to {place} this weekend, drawing about {count} visitors despite the gray skies.",
        "The {org} in {place} opened its {thing} on {weekday}, the result of nearly two years of planning.",
        "Organizers of the {thing} in {place} say this year’s event is the biggest yet.",
    ],
    body: &[
        "{role} {person} said the event had grown from a small gathering into a regional draw.",
        "Tickets sold out within {n} days, organizers said.",
        "The event was funded in part by a grant of {amount} from the {org}.",
        "Local food stalls and craft sellers lined the main street.",
        "{person2}, {a_role2}, said the best part was seeing families come back year after year.",
        "A free program for children runs every {weekday} afternoon.",
        "Attendance rose by {pct} percent compared with last year.",
        "The closing night will feature a performance by a choir from the local high school.",
    ],
    quotes: &[
        "“It brings the whole town together, and that is what it is for,” said {person}, the {role}.",
        "“I have been coming since I was a child,” {last2} said.",
        "“We wanted something that everyone could enjoy, whatever their age,” {last} said.",
        "“The volunteers are the real heroes of the weekend,” said {person2}, {a_role2}.",
    ],
};

const SPORTS: Topic = Topic {
    section: "Sports",
    orgs: &[
        "Millbrook Mariners",
        "Harbor City Gulls",
        "Greywater Rovers",
        "Stonebridge Titans",
        "Kestrel Bay Comets",
        "Ashgrove Athletic",
    ],
    roles: &[
        "coach",
        "captain",
        "goalkeeper",
        "striker",
        "athletic director",
    ],
    things: &[
        "season opener",
        "championship final",
        "derby match",
        "playoff game",
        "cup semifinal",
    ],
    headlines: &[
        "{org} win {thing} in {place}",
        "Late goal decides {thing} for the {org}",
        "{org} fall short in {thing}",
        "{thing}: {org} look ahead after tense night in {place}",
    ],
    leads: &[
        "The {org} won the {thing} in {place} on {weekday} night in front of about {count} fans.",
        "A late goal decided the {thing} in {place} on {weekday}, leaving the {org} with plenty to think about.",
        "The {org} came into the {thing} in {place} with high hopes and left with a result that will be talked about for weeks.",
    ],
    body: &[
        "{role} {person} said the team had prepared for this game all season.",
        "The first half was tight, with few chances for either side.",
        "{person2}, the {role2}, made three important saves in the last ten minutes.",
        "The team has now won {n} of its last twelve games.",
        "Ticket sales were up {pct} percent from last season.",
        "The next game is on {weekday} at home.",
        "An injury to a key player in the second half changed the course of the game.",
        "The crowd stayed long after the final whistle to cheer the players.",
    ],
    quotes: &[
        "“I am proud of every single player out there tonight,” {last} said.",
        "“We made it hard for ourselves, but we got the job done,” said {person}, the {role}.",
        "“We will learn from this and come back stronger,” {last2} said.",
        "“The fans were our extra player tonight,” the {role} said.",
    ],
};

const ENVIRONMENT: Topic = Topic {
    section: "Environment",
    orgs: &[
        "river trust",
        "conservation district",
        "wildlife society",
        "environmental agency",
        "farmers’ cooperative",
    ],
    roles: &[
        "ecologist",
        "farmer",
        "conservation officer",
        "scientist",
        "volunteer",
    ],
    things: &[
        "river clean-up",
        "wetland restoration",
        "tree planting drive",
        "water quality report",
        "solar farm proposal",
        "ban on lawn chemicals",
    ],
    headlines: &[
        "{thing} under way in {place}",
        "{org} reports progress on {thing}",
        "{place} debates {thing}",
        "Volunteers join {thing} near {place}",
    ],
    leads: &[
        "Volunteers gathered near {place} on {weekday} for the {thing}, organized by the {org}.",
        "The {thing} in {place} has shown early results, according to a report from the {org} released on {weekday}.",
        "A {thing} in {place} has drawn both praise and criticism since it was first announced this spring.",
    ],
    body: &[
        "{role} {person} said bird numbers along the river had risen noticeably.",
        "More than {count} volunteers have taken part since the project began.",
        "The work is funded by {amount} from state and private sources.",
        "{person2}, {a_role2}, worried that the plan would take land out of farming.",
        "Pollution levels fell by {pct} percent over two years, the report found.",
        "The {org} will hold another work day next {weekday}.",
        "Schools in the area have joined the effort as part of their science lessons.",
        "The site will be monitored for at least {n} years.",
    ],
    quotes: &[
        "“Nature comes back faster than people expect, if you give it a chance,” said {person}, {a_role}.",
        "“We all want clean water, but the plan has to work for farmers too,” {last2} said.",
        "“This is what a community can do when it decides to act,” {last} said.",
        "“The data are clear, and they are good news,” the {role} said.",
    ],
};

/// Every topic a story can be about.
pub const TOPICS: &[Topic] = &[
    LOCAL,
    WEATHER,
    BUSINESS,
    SCHOOLS,
    HEALTH,
    TRANSPORT,
    COURTS,
    CULTURE,
    SPORTS,
    ENVIRONMENT,
];
