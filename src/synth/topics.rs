//! The topics of invented news stories: for each, the section it runs in, the kinds of bodies
//! its stories involve, the roles of the people quoted and the nouns its stories are about.
//! All text was written for samecore.
//!
//! In: nothing. Out: the static [`TOPICS`] table read by [`super::prose`]. A story takes a few
//! of its topic's nouns as its own subject matter and mixes them with the general vocabulary of
//! [`super::lexicon`]; the sentence grammar is shared by every topic ([`super::grammar`]), so
//! topics differ in words, not in fixed phrases (fixed phrases are what made unrelated generated
//! stories look alike to SpotSigs).

/// One news topic: the section it runs in and the vocabulary of its stories.
pub struct Topic {
    /// Section name shown in breadcrumbs and URLs.
    pub section: &'static str,
    /// Kinds of public bodies (combined with a place: "Duvenhall school board").
    pub bodies: &'static [&'static str],
    /// Roles of the people quoted.
    pub roles: &'static [&'static str],
    /// Nouns stories of this topic are about (whitespace separated; `_` joins a compound).
    pub nouns: &'static str,
}

/// Every topic a story can be about.
pub const TOPICS: &[Topic] = &[
    Topic {
        section: "Local",
        bodies: &["city council", "planning commission", "county board", "zoning board", "parks department", "water authority"],
        roles: &["council member", "mayor", "city manager", "planning director", "county commissioner", "neighborhood organizer", "town clerk", "resident"],
        nouns: "library parking_plan walking_trail swimming_pool property_tax housing_project bus_route town_hall sidewalk
                streetlight crosswalk roundabout skate_park dog_park allotment bandstand fountain storm_drain
                recycling_center landfill snowplow zoning_map annexation rezoning curbside_pickup water_main
                sewer_line fire_station pothole boardwalk community_garden public_restroom farmers_market",
    },
    Topic {
        section: "Weather",
        bodies: &["weather office", "emergency service", "flood agency", "highway department", "power cooperative"],
        roles: &["forecaster", "emergency manager", "fire chief", "utility spokesperson", "sheriff", "lineman", "meteorologist", "plow driver"],
        nouns: "storm flooding heat_wave ice_storm gale snowfall frost hailstorm blizzard thunderstorm tornado
                downpour drizzle snowdrift power_line substation levee sandbag floodgate culvert shelter
                generator windchill humidity dew_point rainfall gust whiteout mudslide riverbank",
    },
    Topic {
        section: "Business",
        bodies: &["chamber of commerce", "development agency", "trade board", "workers union", "business council"],
        roles: &["chief executive", "plant manager", "union steward", "development director", "analyst", "spokesperson", "shop owner", "economist"],
        nouns: "distribution_center factory layoff merger headquarters hiring_drive plant_closure assembly_line
                storefront franchise startup payroll dividend quarterly_result stock_price supply_chain
                warehouse showroom bakery brewery sawmill cannery textile_mill call_center data_center
                shopping_center bankruptcy acquisition buyout",
    },
    Topic {
        section: "Education",
        bodies: &["school board", "teachers union", "parent council", "education department", "community college"],
        roles: &["superintendent", "principal", "board chair", "teacher", "parent", "student", "counselor", "librarian"],
        nouns: "start_time reading_curriculum school_budget four_day_week phone_ban lunch_program high_school
                kindergarten gymnasium science_lab bus_schedule report_card graduation_rate homework_policy
                substitute_teacher tutoring_program summer_school field_trip enrollment_cap test_score
                school_library cafeteria dress_code art_class music_program robotics_club",
    },
    Topic {
        section: "Health",
        bodies: &["health department", "hospital board", "clinic network", "health board", "ambulance service"],
        roles: &["doctor", "nurse", "health officer", "hospital administrator", "patient advocate", "pharmacist", "paramedic", "epidemiologist"],
        nouns: "emergency_wing vaccination_drive maternity_ward hotline walk_in_clinic outbreak ambulance
                waiting_list pharmacy screening_program blood_drive dialysis_unit mental_health_service
                nursing_home flu_season allergy_season hearing_test dental_clinic infection_rate
                hospital_bed intensive_care_unit rehabilitation_center prescription immunization",
    },
    Topic {
        section: "Transport",
        bodies: &["transit authority", "roads agency", "rail company", "port commission", "airport board"],
        roles: &["transit director", "engineer", "commuter", "project manager", "bus driver", "ferry captain", "traffic planner", "cyclist"],
        nouns: "bridge_repair light_rail fare_increase highway_widening ferry_service bike_lane runway
                tram_line bus_depot toll_road rail_crossing parking_garage signal_upgrade freight_line
                night_bus ticket_machine platform_extension overpass interchange ring_road tunnel_lining
                taxi_rank car_pool speed_camera level_crossing",
    },
    Topic {
        section: "Courts",
        bodies: &["county court", "prosecutor office", "appeals court", "police department", "sheriff office"],
        roles: &["judge", "prosecutor", "defense lawyer", "police chief", "detective", "juror", "court clerk", "witness"],
        nouns: "fraud_trial burglary lawsuit embezzlement dismissal_suit arson robbery plea_deal sentencing
                indictment subpoena bail_hearing jury_selection cross_examination mistrial acquittal
                restraining_order custody_dispute forgery smuggling vandalism probation parole
                wiretap search_warrant",
    },
    Topic {
        section: "Arts",
        bodies: &["arts council", "historical society", "community theater", "city museum", "festival committee"],
        roles: &["director", "curator", "festival organizer", "artist", "volunteer", "conductor", "playwright", "sculptor"],
        nouns: "music_festival mural photo_exhibition cinema harvest_fair poetry_prize theater_season
                sculpture quilt_show choir_concert film_screening puppet_show jazz_night book_fair
                craft_market opera dance_recital pottery_studio art_walk lantern_parade brass_band
                folk_dance gallery_opening",
    },
    Topic {
        section: "Sports",
        bodies: &["athletic league", "sports club", "rowing club", "cricket club", "rugby union"],
        roles: &["coach", "captain", "goalkeeper", "striker", "athletic director", "referee", "midfielder", "trainer"],
        nouns: "season_opener final derby playoff semifinal penalty_shootout free_kick hat_trick relegation
                promotion_race transfer_window training_camp injury_list league_table clean_sheet
                comeback marathon regatta relay half_time extra_time stoppage_time corner_kick
                home_crowd away_game",
    },
    Topic {
        section: "Environment",
        bodies: &["river trust", "conservation district", "wildlife society", "environment agency", "farmers cooperative"],
        roles: &["ecologist", "farmer", "conservation officer", "scientist", "volunteer", "beekeeper", "forester", "ranger"],
        nouns: "river_cleanup wetland tree_planting water_quality solar_farm pesticide_ban nesting_site
                wind_turbine compost_scheme hedgerow meadow salmon_run bat_colony otter beaver_dam
                orchard marsh estuary dune_restoration seed_bank pollinator_strip litter_pick
                air_quality_monitor rain_garden",
    },
];

impl Topic {
    /// The topic's nouns with `_` turned into spaces.
    pub fn noun_list(&self) -> impl Iterator<Item = String> + '_ {
        self.nouns.split_whitespace().map(|n| n.replace('_', " "))
    }
}
