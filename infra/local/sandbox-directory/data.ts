/**
 * SANDBOX: the synthetic data set of the sandbox B2B directory. Generated deterministically from
 * a fixed seed, so every run, test and benchmark sees the same people and companies; nothing here
 * describes a real person or company (domains are under the reserved `.example` TLD).
 */

export interface SandboxCompany {
  id: number;
  name: string;
  domain: string;
  website_url: string;
  linkedin_url: string;
  industry: string;
  employee_range: string;
  revenue_range: string;
  location: string;
  logo_url: string;
}

export interface SandboxPerson {
  id: number;
  first_name: string;
  last_name: string;
  title: string;
  seniority: string;
  department: string;
  headline: string;
  location: string;
  email: string | null;
  phone: string | null;
  linkedin_url: string;
  photo_url: string;
  organization: SandboxCompany;
}

export const SANDBOX_COMPANY_COUNT = 2_000;
export const SANDBOX_PERSON_COUNT = 12_000;
const SEED = 20_261_121;

/** mulberry32: a small, fast, deterministic PRNG. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST_NAMES = [
  'Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Lucas', 'Mia', 'Elias', 'Sofia', 'Daan', 'Julia', 'Finn', 'Lotte', 'Sem', 'Anna', 'Milan',
  'Zoë', 'Levi', 'Sara', 'Luca', 'Nora', 'Jesse', 'Eva', 'Thomas', 'Lisa', 'Max', 'Laura', 'David', 'Chloé', 'Hugo', 'Léa', 'Louis',
  'Marta', 'Pablo', 'Lucía', 'Mateo', 'Giulia', 'Marco', 'Chiara', 'Jonas', 'Lena', 'Felix', 'Hannah', 'Paul', 'Ingrid', 'Erik',
  'Aisha', 'Omar', 'Priya', 'Arjun', 'Mei', 'Wei', 'Yuki', 'Kenji', 'Fatima', 'Youssef', 'Amara', 'Kwame', 'Isabel', 'Diego',
  'Grace', 'James', 'Charlotte', 'Oliver', 'Amelia', 'Henry', 'Sophie', 'Jack', 'Ella', 'Samuel', 'Ruby', 'Adam', 'Nina', 'Oscar',
];
const LAST_NAMES = [
  'de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'Mulder', 'Bos', 'Vos', 'Peters', 'Hendriks', 'Dekker', 'Müller',
  'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Wagner', 'Becker', 'Martin', 'Bernard', 'Dubois', 'Durand', 'Lefèvre', 'Moreau',
  'García', 'Fernández', 'López', 'Martínez', 'Rossi', 'Russo', 'Ferrari', 'Bianchi', 'Nielsen', 'Hansen', 'Andersson', 'Johansson',
  'Nowak', 'Kowalski', 'Novák', 'Horváth', 'Silva', 'Santos', 'Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Evans',
  'Murphy', "O'Brien", 'Kelly', 'Patel', 'Shah', 'Khan', 'Chen', 'Wang', 'Li', 'Tanaka', 'Sato', 'Kim', 'Park', 'Nguyen', 'Okafor',
  'Mensah', 'Haddad', 'Cohen', 'Levy', 'Johnson', 'Clark', 'Lewis', 'Walker', 'Hall', 'Young', 'King', 'Wright', 'Scott',
];
const NAME_STEMS = [
  'North', 'Blue', 'Bright', 'Clear', 'Swift', 'Iron', 'Silver', 'Green', 'Red', 'Nova', 'Apex', 'Terra', 'Quantum', 'Atlas', 'Orbit',
  'Peak', 'River', 'Stone', 'Cloud', 'Signal', 'Pixel', 'Vector', 'Summit', 'Harbor', 'Beacon', 'Cedar', 'Falcon', 'Lumen', 'Nimbus',
  'Polar', 'Prism', 'Solar', 'Tidal', 'Vertex', 'Zenith', 'Aurora', 'Boreal', 'Crest', 'Delta', 'Echo',
];
const NAME_TAILS = [
  'wind', 'field', 'works', 'gate', 'point', 'line', 'forge', 'path', 'bridge', 'stack', 'wave', 'light', 'base', 'mark', 'scale',
  'loop', 'port', 'shift', 'craft', 'labs',
];
const NAME_SUFFIXES = ['', ' Inc', ' Group', ' Analytics', ' Systems', ' Software', ' Partners', ' Health', ' Logistics', ' Energy'];
const INDUSTRIES = [
  'Software', 'Information Technology', 'Financial Services', 'Banking', 'Insurance', 'Healthcare', 'Biotechnology', 'Retail',
  'E-commerce', 'Logistics', 'Manufacturing', 'Automotive', 'Energy', 'Telecommunications', 'Media', 'Marketing and Advertising',
  'Education', 'Real Estate', 'Hospitality', 'Consulting',
];
const SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+'];
const REVENUES = ['$0-$1M', '$1M-$10M', '$10M-$50M', '$50M-$100M', '$100M-$500M', '$500M-$1B', '$1B+'];
const LOCATIONS = [
  'Amsterdam, Netherlands', 'Rotterdam, Netherlands', 'Utrecht, Netherlands', 'Berlin, Germany', 'Munich, Germany', 'Hamburg, Germany',
  'Paris, France', 'Lyon, France', 'London, United Kingdom', 'Manchester, United Kingdom', 'Dublin, Ireland', 'Madrid, Spain',
  'Barcelona, Spain', 'Lisbon, Portugal', 'Milan, Italy', 'Rome, Italy', 'Zürich, Switzerland', 'Vienna, Austria', 'Brussels, Belgium',
  'Copenhagen, Denmark', 'Stockholm, Sweden', 'Oslo, Norway', 'Helsinki, Finland', 'Warsaw, Poland', 'Prague, Czechia',
  'New York, NY, United States', 'San Francisco, CA, United States', 'Austin, TX, United States', 'Boston, MA, United States',
  'Chicago, IL, United States', 'Seattle, WA, United States', 'Toronto, Canada', 'Vancouver, Canada', 'São Paulo, Brazil',
  'Mexico City, Mexico', 'Singapore', 'Tokyo, Japan', 'Sydney, Australia', 'Bangalore, India', 'Dubai, United Arab Emirates',
];
const DEPARTMENTS = ['Sales', 'Marketing', 'Engineering', 'Product', 'Finance', 'Human Resources', 'Operations', 'Customer Success', 'Legal', 'Design'];
const SENIORITIES: { name: string; weight: number; titles: (department: string) => string[] }[] = [
  { name: 'C-Level', weight: 4, titles: (d) => [{ Sales: 'CRO', Marketing: 'CMO', Engineering: 'CTO', Finance: 'CFO', Operations: 'COO' }[d] ?? 'CEO'] },
  { name: 'VP', weight: 8, titles: (d) => [`VP of ${d}`, `Vice President ${d}`] },
  { name: 'Director', weight: 12, titles: (d) => [`Director of ${d}`, `Head of ${d}`] },
  { name: 'Manager', weight: 22, titles: (d) => [`${d} Manager`, `${d} Team Lead`] },
  { name: 'Senior', weight: 24, titles: (d) => [`Senior ${d} Specialist`, d === 'Engineering' ? 'Senior Software Engineer' : `Senior ${d} Associate`] },
  { name: 'Entry', weight: 30, titles: (d) => [`${d} Associate`, d === 'Sales' ? 'Account Executive' : `${d} Coordinator`, d === 'Engineering' ? 'Software Engineer' : `${d} Analyst`] },
];

const slug = (value: string) =>
  value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export interface SandboxData {
  companies: SandboxCompany[];
  people: SandboxPerson[];
}

let cached: SandboxData | undefined;

/** The data set; generated on first use and kept for the process. */
export function sandboxData(): SandboxData {
  if (cached) return cached;
  const rand = random(SEED);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rand() * values.length)] as T;

  const companies: SandboxCompany[] = [];
  const usedNames = new Set<string>();
  // 40 stems x 20 tails x 10 suffixes = 8,000 possible names; 2,000 distinct ones are drawn.
  while (companies.length < SANDBOX_COMPANY_COUNT) {
    const name = `${pick(NAME_STEMS)}${pick(NAME_TAILS)}${pick(NAME_SUFFIXES)}`;
    if (usedNames.has(name)) continue;
    usedNames.add(name);
    const domain = `${slug(name)}.example`;
    companies.push({
      id: 100_000 + companies.length + 1,
      name,
      domain,
      website_url: `https://www.${domain}`,
      linkedin_url: `https://www.linkedin.com/company/${slug(name)}`,
      industry: pick(INDUSTRIES),
      employee_range: pick(SIZES),
      revenue_range: pick(REVENUES),
      location: pick(LOCATIONS),
      logo_url: `https://logos.${domain}/logo.png`,
    });
  }

  const totalWeight = SENIORITIES.reduce((sum, s) => sum + s.weight, 0);
  const people: SandboxPerson[] = [];
  for (let i = 0; i < SANDBOX_PERSON_COUNT; i += 1) {
    const first = pick(FIRST_NAMES);
    const last = pick(LAST_NAMES);
    const organization = pick(companies);
    const roll = rand() * totalWeight;
    let cumulative = 0;
    const seniority =
      SENIORITIES.find((s) => {
        cumulative += s.weight;
        return roll < cumulative;
      }) ?? (SENIORITIES[0] as (typeof SENIORITIES)[number]);
    const department = pick(DEPARTMENTS);
    const title = pick(seniority.titles(department));
    const handle = `${slug(first)}-${slug(last)}-${(i + 1).toString(36)}`;
    people.push({
      id: 500_000 + i + 1,
      first_name: first,
      last_name: last,
      title,
      seniority: seniority.name,
      department,
      headline: `${title} at ${organization.name}`,
      location: rand() < 0.7 ? organization.location : pick(LOCATIONS),
      email: rand() < 0.7 ? `${slug(first)}.${slug(last).replace(/-/g, '')}${i + 1}@${organization.domain}` : null,
      phone: rand() < 0.3 ? `+31 6 ${String(10_000_000 + Math.floor(rand() * 89_999_999))}` : null,
      linkedin_url: `https://www.linkedin.com/in/${handle}/`,
      photo_url: `https://photos.sandbox-directory.example/${handle}.jpg`,
      organization,
    });
  }
  cached = { companies, people };
  return cached;
}
