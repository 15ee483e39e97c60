import type { ReactNode } from 'react';

/** A page: title row (with actions on the right), an optional subtitle, then the content. */
export function Page({
  title,
  subtitle,
  actions,
  testId,
  children,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <section className="page" data-testid={testId} aria-labelledby="page-title">
      <header className="page-head">
        <div>
          <h1 id="page-title" className="page-title" tabIndex={-1}>
            {title}
          </h1>
          {subtitle ? <p className="page-subtitle">{subtitle}</p> : null}
        </div>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** A bordered card with an optional heading and actions. */
export function Panel({
  title,
  actions,
  children,
  className,
  testId,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  return (
    <section className={`panel${className ? ` ${className}` : ''}`} data-testid={testId}>
      {title || actions ? (
        <header className="panel-head">
          {title ? <h2>{title}</h2> : null}
          {actions ? <div className="panel-actions">{actions}</div> : null}
        </header>
      ) : null}
      {children}
    </section>
  );
}

/** A labelled figure: "Expected cost  $0.35". */
export function Stat({ label, value, hint, testId }: { label: ReactNode; value: ReactNode; hint?: ReactNode; testId?: string }) {
  return (
    <div className="stat" data-testid={testId}>
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {hint ? <div className="stat-hint">{hint}</div> : null}
    </div>
  );
}
