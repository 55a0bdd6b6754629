//! The invented news sites: masthead, host, charset declaration, menu, byline style, advert
//! copy and footer text. Their HTML frames are built in [`super::sites`].
//!
//! In: nothing. Out: the static [`SITES`] table; a site's index is part of every URL it serves.

use super::sites::Charset;

/// One invented news site.
#[derive(Debug)]
pub struct Site {
    /// Masthead name.
    pub name: &'static str,
    /// Scheme and host, e.g. `https://www.millbrookcourier.com`.
    pub origin: &'static str,
    /// Class-name prefix of its markup (frames differ in markup as well as text).
    pub prefix: &'static str,
    /// Charset declaration.
    pub charset: Charset,
    /// Navigation menu entries.
    pub nav: &'static [&'static str],
    /// Slogan under the masthead.
    pub tagline: &'static str,
    /// Byline template; `{author}` is replaced.
    pub byline: &'static str,
    /// Advert copy the site rotates.
    pub ads: &'static [&'static str],
    /// The "about us" paragraph of the footer.
    pub about: &'static str,
}

const NAV_A: &[&str] = &[
    "Home",
    "Local",
    "Politics",
    "Business",
    "Education",
    "Health",
    "Courts",
    "Weather",
    "Sports",
    "Arts",
    "Environment",
    "Opinion",
    "Obituaries",
    "Classifieds",
    "Jobs",
    "Real Estate",
    "Events",
    "Photos",
    "Video",
    "Podcasts",
    "Newsletters",
    "Subscribe",
    "e-Edition",
    "Contact",
];
const NAV_B: &[&str] = &[
    "News",
    "Region",
    "Transport",
    "Money",
    "Schools",
    "Crime",
    "Sport",
    "Culture",
    "Life",
    "Food",
    "Travel",
    "Homes",
    "Cars",
    "Puzzles",
    "Horoscopes",
    "Letters",
    "Archive",
    "Shop",
    "Advertise",
    "Help",
];

/// The invented sites, in a fixed order (a site's index is part of every URL it serves).
pub const SITES: &[Site] = &[
    Site {
        name: "The Millbrook Courier",
        origin: "https://www.millbrookcourier.com",
        prefix: "mc",
        charset: Charset::Utf8Header,
        nav: NAV_A,
        tagline: "Serving Millbrook and the valley since 1884",
        byline: "By {author}, Courier staff",
        ads: &[
            "Hartley’s Hardware — spring sale, 20% off garden tools this weekend only",
            "Refinance today with Millbrook Savings Bank. Rates from 5.9% APR.",
            "Valley Dental: new patients welcome, evening appointments available",
            "Sell your car in 24 hours. Get an instant offer online.",
        ],
        about: "The Millbrook Courier is an independent newspaper owned by the Courier Trust. Our newsroom reports on local government, schools, business and community life across the valley. Corrections and clarifications appear on page two of the print edition.",
    },
    Site {
        name: "Harbor City Herald",
        origin: "https://www.harborcityherald.com",
        prefix: "hch",
        charset: Charset::Win1252Header,
        nav: NAV_B,
        tagline: "The voice of the waterfront",
        byline: "{author} | Herald correspondent",
        ads: &[
            "Dockside Seafood Grill — Tuesday is lobster night",
            "Harbor City Ferries: buy a monthly pass and save",
            "Is your roof ready for winter? Free inspections from Bayline Roofing",
            "Harbor Credit Union — open an account in minutes",
        ],
        about: "The Harbor City Herald has covered the port, the neighborhoods and the people of Harbor City for more than a century. Send news tips to the city desk. Letters to the editor may be edited for length and clarity.",
    },
    Site {
        name: "The Greywater Gazette",
        origin: "http://news.greywatergazette.net",
        prefix: "gg",
        charset: Charset::Win1252MetaOnly,
        nav: NAV_A,
        tagline: "News from Greywater and the hill towns",
        byline: "Story by {author}",
        ads: &[
            "Greywater Feed & Seed — bulk orders delivered free",
            "Hill Country Realty: find your dream home today",
            "Learn to drive with Ace Driving School — first lesson half price",
        ],
        about: "The Greywater Gazette is published every weekday and online around the clock. It is a member of the Hill Towns Press Association. All content is copyright of its authors and may not be reproduced without permission.",
    },
    Site {
        name: "Kestrel Bay Daily",
        origin: "https://kestrelbaydaily.com",
        prefix: "kbd",
        charset: Charset::Utf8MetaOnly,
        nav: NAV_B,
        tagline: "Every story from the bay, every day",
        byline: "Written by {author}",
        ads: &[
            "Kestrel Bay Kayak Tours — book the sunset paddle",
            "Bayview Pharmacy: flu shots now available, no appointment needed",
            "Coastal Electric: switch and save on your power bill",
            "Win two tickets to the Bay Jazz Weekend",
        ],
        about: "Kestrel Bay Daily is a reader-supported news site. We do not put our journalism behind a paywall; if you value it, please consider becoming a member. Our editorial code and ownership details are published on the About page.",
    },
    Site {
        name: "Stonebridge Sentinel",
        origin: "https://www.stonebridge-sentinel.org",
        prefix: "ss",
        charset: Charset::Utf8Header,
        nav: NAV_A,
        tagline: "Independent. Local. Since 1902.",
        byline: "By {author}",
        ads: &[
            "Stonebridge Motors — zero percent financing on certified cars",
            "Ridgeline Gym: join now, no sign-up fee",
            "Hometown Insurance: bundle home and auto",
        ],
        about: "The Stonebridge Sentinel is published by the Sentinel Community Media Foundation, a nonprofit. Donations support local reporting and are tax deductible. The Sentinel follows the standards of the regional press council.",
    },
    Site {
        name: "The Lindenvale Ledger",
        origin: "https://www.lindenvaleledger.com",
        prefix: "ll",
        charset: Charset::Utf8Header,
        nav: NAV_B,
        tagline: "Lindenvale’s newspaper of record",
        byline: "By {author}, Ledger Staff Writer",
        ads: &[
            "Ledger Classifieds: place your ad online in minutes",
            "Lindenvale Garden Center — perennials buy two get one free",
            "Apex Tax Services: file early, get your refund faster",
            "Lindenvale Orchestra season tickets on sale now",
        ],
        about: "The Lindenvale Ledger publishes local news, public notices and legal advertisements for Lindenvale County. To report an error, contact the standards editor. Subscribers can read the digital edition on any device.",
    },
    Site {
        name: "Port Aldous Observer",
        origin: "https://observer.portaldous.co.uk",
        prefix: "pao",
        charset: Charset::Utf8Header,
        nav: NAV_A,
        tagline: "Port Aldous, the estuary and beyond",
        byline: "{author}, Observer reporter",
        ads: &[
            "Estuary Boatyard — winter storage spaces available",
            "Aldous Bakery: fresh bread delivered before breakfast",
            "Compare energy tariffs and switch in five minutes",
        ],
        about: "The Port Aldous Observer is part of the Estuary News Group. We are regulated by the independent press standards body; complaints may be sent to our readers’ editor. Photographs may be purchased from our picture desk.",
    },
    Site {
        name: "Valley Wire",
        origin: "https://www.valleywire.news",
        prefix: "vw",
        charset: Charset::Utf8Header,
        nav: NAV_B,
        tagline: "Regional news, as it happens",
        byline: "{author} / Valley Wire Service",
        ads: &[
            "Get Valley Wire alerts on your phone — download the app",
            "Regional Jobs Board: hundreds of new listings this week",
            "Sponsored: five ways to cut your heating bill",
            "Valley Wire Premium: no ads, full archive",
        ],
        about: "Valley Wire distributes regional news to member newspapers and publishes it directly to readers. Stories carried here may also appear on partner sites, sometimes in edited form. Wire copy is provided as is.",
    },
];
