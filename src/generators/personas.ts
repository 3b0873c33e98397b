/**
 * Synthetic Minds. A persona first gets a complete set of traits, and only then loses some filter
 * attributes to `missingRate`: the headline and bio still mention the trait, as a real record whose
 * structured field was never filled in would.
 */

import { countryOf, type Domain, domainOf } from "./domains.ts";
import { hex64 } from "./ids.ts";
import type { Rng } from "./prng.ts";
import {
  BUSINESS_MODELS,
  COMPANY_SIZE_WORDS,
  COMPANY_SIZES,
  COUNTRIES,
  type CountryInfo,
  EDUCATION_LEVELS,
  EMPLOYER_TYPES_BY_INDUSTRY,
  FIRST_NAMES,
  type FilterAttributes,
  GENERIC_EMPLOYER_TYPES,
  GENERIC_JOB_TITLES,
  INDUSTRIES,
  JOB_TITLES_BY_ROLE,
  LAST_NAMES,
  PERSPECTIVES,
  PRONOUNS,
  ROLES,
  SENIORITIES,
  TECHNOLOGIES,
} from "./vocabulary.ts";
import { weightedPicker } from "./weighted.ts";

export interface PersonaProfile {
  age: number;
  /** Present only when the persona states them. */
  pronouns?: string;
  /** "City, Country". */
  location: string;
  city: string;
  /** ISO 3166-1 alpha-2; kept even when the `country` filter attribute is missing. */
  countryCode: string;
  seniority: string;
  yearsOfExperience: number;
  education: string;
}

export interface PersonaFixture {
  name: string;
  headline: string;
  bio: string;
  systemPrompt: string;
  profile: PersonaProfile;
  attributes: FilterAttributes;
  profileImageUrl: string;
}

export interface PersonaOptions {
  /** Probability that each filter attribute is independently absent. Default 0.1. */
  missingRate?: number;
  /** The audience topic, woven into the bio and system prompt. */
  theme?: string;
  /**
   * Draw the people from the field of work and the country the theme names (generators/domains.ts): nurses
   * for a topic about nurses. A theme that names no domain gives the general business mix, as without.
   */
  fitTheme?: boolean;
}

export const DEFAULT_MISSING_RATE = 0.1;
export const PROFILE_IMAGE_URL_PREFIX = "https://images.example.invalid/minds/";

const pickPerspective = weightedPicker(PERSPECTIVES);
const pickCountry = weightedPicker(COUNTRIES);
const pickCompanySize = weightedPicker(COMPANY_SIZES);
const pickSeniority = weightedPicker(SENIORITIES);
const pickEducation = weightedPicker(EDUCATION_LEVELS);

/** Where the work-related traits come from: the general business mix, or one domain's. */
interface WorkVocabulary {
  industry: (rng: Rng) => string;
  role: (rng: Rng) => string;
  title: (rng: Rng, role: string) => string;
  country: (rng: Rng) => CountryInfo;
  technology: (rng: Rng) => string;
  businessModel: (rng: Rng) => string;
  employer: (rng: Rng, industry: string) => string;
}

const GENERAL: WorkVocabulary = {
  industry: weightedPicker(INDUSTRIES),
  role: weightedPicker(ROLES),
  title: (rng, role) => rng.pick(JOB_TITLES_BY_ROLE[role] ?? GENERIC_JOB_TITLES),
  country: pickCountry,
  technology: weightedPicker(TECHNOLOGIES),
  businessModel: weightedPicker(BUSINESS_MODELS),
  employer: (rng, industry) => rng.pick(EMPLOYER_TYPES_BY_INDUSTRY[industry] ?? GENERIC_EMPLOYER_TYPES),
};

/** The work vocabulary of one domain, with most people from `country` when the theme names one. */
function vocabularyOf(domain: Domain | null, country: string | null): WorkVocabulary {
  const home = COUNTRIES.find(([c]) => c.code === country)?.[0];
  const fromCountry = home
    ? { country: (rng: Rng) => (rng.chance(0.8) ? home : pickCountry(rng)) }
    : { country: pickCountry };
  if (!domain) return { ...GENERAL, ...fromCountry };
  const titles = new Map(domain.roles.map(([role, , t]) => [role, t]));
  return {
    industry: weightedPicker(domain.industries),
    role: weightedPicker(domain.roles.map(([role, weight]) => [role, weight] as const)),
    title: (rng, role) => rng.pick(titles.get(role) ?? GENERIC_JOB_TITLES),
    technology: weightedPicker(domain.technologies),
    businessModel: weightedPicker(domain.businessModels),
    employer: (rng) => rng.pick(domain.employers),
    ...fromCountry,
  };
}

/** Themes seen so far and their vocabularies: placing a theme is done once, not per persona. */
const vocabularies = new Map<string, WorkVocabulary>();

function vocabularyFor(options: PersonaOptions): WorkVocabulary {
  if (!options.fitTheme || options.theme === undefined) return GENERAL;
  let v = vocabularies.get(options.theme);
  if (!v) {
    if (vocabularies.size >= 1000) vocabularies.clear();
    v = vocabularyOf(domainOf(options.theme), countryOf(options.theme));
    vocabularies.set(options.theme, v);
  }
  return v;
}

/** Every trait a persona has, before any attribute goes missing. */
interface Traits {
  first: string;
  last: string;
  perspective: string;
  industry: string;
  role: string;
  country: CountryInfo;
  city: string;
  companySize: string;
  technology: string;
  businessModel: string;
  jobTitle: string;
  employer: string;
  seniority: string;
  age: number;
  yearsOfExperience: number;
  education: string;
}

function drawTraits(rng: Rng, work: WorkVocabulary): Traits {
  const industry = work.industry(rng);
  const role = work.role(rng);
  const country = work.country(rng);
  const companySize = pickCompanySize(rng);
  const age = rng.int(23, 64);
  return {
    first: rng.pick(FIRST_NAMES),
    last: rng.pick(LAST_NAMES),
    perspective: pickPerspective(rng),
    industry,
    role,
    country,
    city: rng.pick(country.cities),
    companySize,
    technology: work.technology(rng),
    businessModel: work.businessModel(rng),
    jobTitle: work.title(rng, role),
    employer: `${COMPANY_SIZE_WORDS[companySize] ?? "a"} ${work.employer(rng, industry)}`,
    seniority: pickSeniority(rng),
    age,
    // Careers start at 21 or later, so experience never outruns age.
    yearsOfExperience: rng.int(1, Math.max(1, age - 21)),
    education: pickEducation(rng),
  };
}

function attributesOf(rng: Rng, t: Traits, missingRate: number): FilterAttributes {
  // One draw per key whatever the outcome, so the missing pattern of one key never shifts another's.
  // Written out key by key (in FILTER_ATTRIBUTE_KEYS order) because this runs once per persona.
  const a: FilterAttributes = {};
  if (!rng.chance(missingRate)) a.perspective = t.perspective;
  if (!rng.chance(missingRate)) a.industry = t.industry;
  if (!rng.chance(missingRate)) a.role = t.role;
  if (!rng.chance(missingRate)) a.country = t.country.code;
  if (!rng.chance(missingRate)) a.companySize = t.companySize;
  if (!rng.chance(missingRate)) a.technology = t.technology;
  if (!rng.chance(missingRate)) a.businessModel = t.businessModel;
  return a;
}

/** Vocabulary words are few, so their lower-case forms are computed once rather than per persona. */
const lowerCache = new Map<string, string>();
function lower(word: string): string {
  let l = lowerCache.get(word);
  if (l === undefined) {
    l = word.toLowerCase();
    lowerCache.set(word, l);
  }
  return l;
}

/**
 * Two to four sentences; the fourth names the audience when there is a theme. The sentences are joined
 * rather than concatenated because `join` returns one flat string, while `+` keeps a tree of fragments
 * alive per persona: retained memory of a large audience roughly halves.
 */
function bioOf(rng: Rng, t: Traits, theme: string | undefined): string {
  const extras = rng.int(0, 2);
  const sentences = [
    `${t.first} is a ${t.age}-year-old ${t.jobTitle} based in ${t.city}, ${t.country.name}.`,
    `${t.first} works at ${t.employer} in ${lower(t.industry)} (${t.companySize} employees, ${t.businessModel} model).`,
  ];
  if (extras >= 1) {
    sentences.push(
      `Day to day the team runs on ${t.technology}, and ${t.first} usually acts as the ${lower(t.perspective)} when new tools are bought.`,
    );
  }
  if (extras >= 2) {
    sentences.push(
      theme === undefined
        ? `${t.first} has ${t.yearsOfExperience} years of experience.`
        : `${t.first} belongs to the audience "${theme}".`,
    );
  }
  return sentences.join(" ");
}

/** Joined for the same reason as the bio. */
function systemPromptOf(t: Traits, theme: string | undefined): string {
  const sentences = [
    `You are ${t.first} ${t.last}, ${t.jobTitle} at ${t.employer} in ${t.city}.`,
    `Answer in the first person from ${t.yearsOfExperience} years of experience in ${lower(t.industry)}.`,
  ];
  if (theme !== undefined) sentences.push(`You are part of the audience "${theme}".`);
  return sentences.join(" ");
}

function profileOf(rng: Rng, t: Traits): PersonaProfile {
  const profile: PersonaProfile = {
    age: t.age,
    location: `${t.city}, ${t.country.name}`,
    city: t.city,
    countryCode: t.country.code,
    seniority: t.seniority,
    yearsOfExperience: t.yearsOfExperience,
    education: t.education,
  };
  if (rng.chance(0.4)) profile.pronouns = rng.pick(PRONOUNS);
  return profile;
}

/** One persona; every field comes from `rng`, so the same stream always yields the same persona. */
export function generatePersona(rng: Rng, options: PersonaOptions = {}): PersonaFixture {
  const missingRate = options.missingRate ?? DEFAULT_MISSING_RATE;
  const theme = options.theme;
  const t = drawTraits(rng, vocabularyFor(options));
  return {
    name: `${t.first} ${t.last}`,
    headline: `${t.jobTitle} at ${t.employer}`,
    bio: bioOf(rng, t, theme),
    systemPrompt: systemPromptOf(t, theme),
    profile: profileOf(rng, t),
    attributes: attributesOf(rng, t, missingRate),
    profileImageUrl: `${PROFILE_IMAGE_URL_PREFIX}${hex64(rng)}.png`,
  };
}

/** `count` personas; persona i draws from its own fork, so it does not change when `count` does. */
export function generatePersonas(rng: Rng, count: number, options: PersonaOptions = {}): PersonaFixture[] {
  const personas: PersonaFixture[] = new Array(count);
  for (let i = 0; i < count; i++) personas[i] = nthPersona(rng, i, options);
  return personas;
}

/**
 * Persona `i` of `generatePersonas(rng, count, options)` for any `count` above `i`, made alone.
 *
 * A persona is a pure function of the stream's seed, `i` and the options, and building a world makes
 * thousands of them (most of the time a fresh world takes), so they are kept, frozen, and shared by every
 * world this process builds: a world copies what it may change (`mindFromPersona`).
 */
export function nthPersona(rng: Rng, i: number, options: PersonaOptions = {}): PersonaFixture {
  const key = `${rng.seed}:${i}:${options.theme ?? ""}:${options.missingRate ?? DEFAULT_MISSING_RATE}:${options.fitTheme === true}`;
  const known = made.get(key);
  if (known) return known;
  // Bounded: a process that builds worlds from many seeds starts over rather than grow without end.
  if (made.size >= MAX_KEPT) made.clear();
  const p = generatePersona(rng.fork(`persona:${i}`), options);
  Object.freeze(p.profile);
  Object.freeze(p.attributes);
  made.set(key, Object.freeze(p));
  return p;
}

// About two default worlds (5,400 personas each): a server reset to new seeds keeps its memory flat.
const MAX_KEPT = 12_000;
const made = new Map<string, PersonaFixture>();
