// Problems shown in the inspector that belong to no single input of the form.
export function ProblemNotes({ messages }: { messages: readonly string[] }) {
  return (
    <ul className="problem-notes">
      {messages.map((message) => (
        <li key={message} className="field-problem">
          {message}
        </li>
      ))}
    </ul>
  );
}

/** The problems of the selection that no field of its form showed, in a section of their own. */
export function OtherProblems({ messages }: { messages: readonly string[] }) {
  if (messages.length === 0) return null;
  return (
    <section className="inspector-section" aria-label="Other problems">
      <h3>Other problems</h3>
      <ProblemNotes messages={messages} />
    </section>
  );
}
