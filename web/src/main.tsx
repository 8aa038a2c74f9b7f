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

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)
