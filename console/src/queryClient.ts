import { QueryClient } from '@tanstack/react-query';
import { ApiFailure } from './api-failure';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // An answer of the API (400, 403, 404, 409…) is final; only a lost connection or a 5xx is tried again.
      retry: (count, error) => count < 2 && !(error instanceof ApiFailure && error.status < 500),
    },
    mutations: { retry: false },
  },
});
