import { QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { adoptPageSession } from './features/auth/page-session'
import { adoptPageAnswers } from './lib/page-answers'
import { queryClient } from './query-client'
import { router } from './router'
import './styles.css'

const root = document.getElementById('root')
if (root === null) throw new Error('index.html has no #root element')

adoptPageSession(queryClient, document)
adoptPageAnswers(document)

function render(container: HTMLElement) {
  createRoot(container).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  )
}

// A screen the BFF drew (server-render.tsx) stays until the app has loaded the same screen, from the page's answers:
// rendering at once would put an empty frame in its place. React then replaces the drawn screen with its own.
if (root.firstChild === null) render(root)
else
  void router.load().finally(() => {
    render(root)
  })
