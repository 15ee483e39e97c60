import type { PageInfo } from '../state/pages';

/** Stands in for a page that a later step builds; says what it will be, shows no fake data. */
export function PlaceholderPage({ page }: { page: PageInfo }) {
  return (
    <section className="panel placeholder" aria-labelledby="placeholder-title" data-testid={`page-${page.id}`}>
      <h2 id="placeholder-title">{page.label}</h2>
      <p>{page.summary}</p>
      <p className="muted">Coming in a later step.</p>
    </section>
  );
}
