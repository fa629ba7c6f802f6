import { useTitle } from '../components/ui';
import { Link } from '../router';

export function NotFound() {
  useTitle('Page not found');
  return (
    <section className="panel">
      <h1>Page not found</h1>
      <p>There is no such page in the console, or your roles do not include it.</p>
      <p>
        <Link to="/">Go to the start page</Link>
      </p>
    </section>
  );
}
