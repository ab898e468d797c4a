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
