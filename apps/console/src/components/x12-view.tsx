import { useState } from 'react';
import type { Located, X12Text } from '../x12';

const SHOWN = 1500;

/** The payload segment by segment, numbered by line and column, each problem marked at its segment and element. */
export function X12View({ x12, problems }: { x12: X12Text; problems: Located[] }) {
  const [limit, setLimit] = useState(SHOWN);
  const bySegment = new Map<number, Located[]>();
  for (const problem of problems) {
    bySegment.set(problem.segment, [...(bySegment.get(problem.segment) ?? []), problem]);
  }
  const firstProblem = Math.min(...problems.map((p) => p.segment));
  const shown = Math.max(limit, Number.isFinite(firstProblem) ? firstProblem + 20 : 0);
  return (
    <div className="x12" data-testid="x12">
      {problems.length > 0 && (
        <ul className="problem-list" aria-label="Problems">
          {problems.map((problem, i) => {
            const segment = x12.segments[problem.segment];
            return (
              <li key={i}>
                <button type="button" className="link" onClick={() => jump(problem.segment)}>
                  {segment ? `line ${segment.line}, column ${segment.column} (${segment.tag})` : 'segment'}
                  {problem.element ? `, element ${problem.element}` : ''}
                </button>
                : {problem.message}
              </li>
            );
          })}
        </ul>
      )}
      <ol className="segments">
        {x12.segments.slice(0, shown).map((segment) => {
          const marks = bySegment.get(segment.index);
          const faulty = new Set(marks?.map((m) => m.element).filter((e): e is number => !!e));
          return (
            <li
              key={segment.index}
              id={`x12-seg-${segment.index}`}
              className={marks ? 'problem' : undefined}
              data-testid={marks ? 'x12-problem' : undefined}
              tabIndex={marks ? 0 : undefined}
            >
              <span className="where" aria-hidden="true">
                {segment.line}:{segment.column}
              </span>
              <code>
                <span className="tag">{segment.tag}</span>
                {segment.elements.map((element, i) => (
                  <span key={i}>
                    <span className="sep">{x12.elementSeparator}</span>
                    <span
                      className={faulty.has(i + 1) ? 'bad-element' : undefined}
                      title={`${segment.tag}${String(i + 1).padStart(2, '0')}`}
                    >
                      {element}
                    </span>
                  </span>
                ))}
                <span className="sep">{x12.terminator}</span>
              </code>
              {marks?.map((mark, i) => (
                <p key={i} className="mark" role="note">
                  ▲ {mark.element ? `${segment.tag}${String(mark.element).padStart(2, '0')}: ` : ''}
                  {mark.message}
                </p>
              ))}
            </li>
          );
        })}
      </ol>
      {x12.segments.length > shown && (
        <button type="button" className="secondary" onClick={() => setLimit(shown + SHOWN)}>
          Show more segments ({(x12.segments.length - shown).toLocaleString('en')} left)
        </button>
      )}
    </div>
  );
}

function jump(segment: number) {
  const target = document.getElementById(`x12-seg-${segment}`);
  target?.scrollIntoView({ block: 'center' });
  target?.focus();
}
